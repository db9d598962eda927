import type { TargetState } from '../balancer/balancer.js';
import type { HostConfig } from '../config/types.js';
import { HandoffError, OperationError } from '../errors.js';
import type { HeldLock } from '../agent-client/client.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import {
  describeStop,
  hostActions,
  stopProblems,
  summarizeVerify,
  type HostActions,
} from './host-actions.js';
import { formatMs, type Describe, type StepRecorder } from './recorder.js';
import { recover } from './recover.js';
import { awaitRotation, describeState, type Bounds } from './rotation.js';
import type { HostOutcome, RolloutDeps, StepName } from './types.js';

export interface HostRun {
  readonly deps: RolloutDeps;
  readonly host: HostConfig;
  readonly agent: HostAgent;
  readonly release: string;
  readonly rollback: boolean;
  readonly bounds: Bounds;
  readonly rec: StepRecorder;
  readonly leaseMs: number;
  /** the release live on the host before this rollout (what a rollback returns to) */
  readonly liveBefore: string | null;
  /**
   * going back to a release that ran before (`deploy rollback`, on_failure
   * rollback): it may predate x-release, so expect_release accepts none
   */
  readonly returning?: boolean;
}

/** Where a host stands while it is being deployed: what recovery has to undo. */
export interface HostProgress {
  step: StepName;
  lock?: HeldLock;
  drained: boolean;
  stopped: boolean;
  /** the stop answered without proving every service stopped: some may still run the old release */
  stopUnproven: boolean;
  /** the switch to the new release was sent (it may have happened even if it failed) */
  switched: boolean;
  /** undrained after the new release started: the balancer may route to it */
  exposed: boolean;
  lockLost: boolean;
}

/**
 * The drain handshake for one host, from lock to unlock, between its
 * pre-host and post-host hooks. Never throws: failures become the outcome.
 */
export async function deployHost(run: HostRun): Promise<HostOutcome> {
  const { deps, host, agent, rec } = run;
  const actions = hostActions(deps, host, agent, run.release, run.leaseMs);
  const progress: HostProgress = {
    step: 'pre-host',
    drained: false,
    stopped: false,
    stopUnproven: false,
    switched: false,
    exposed: false,
    lockLost: false,
  };
  const controller = new AbortController();
  const forward = (): void => controller.abort(deps.signal.reason);
  deps.signal.addEventListener('abort', forward, { once: true });
  let outcome: HostOutcome;
  try {
    await hostHook(run, 'pre-host');
    await handshake(run, actions, progress, controller);
    outcome = { host: host.name, result: 'deployed', steps: rec.steps, leftDrained: false };
  } catch (error) {
    outcome = await recover(run, actions, progress, error);
  } finally {
    deps.signal.removeEventListener('abort', forward);
    await unlock(run, progress);
    // the audit goes through the lock holder, which has ended: post-host is not in audit.jsonl
    rec.audit = undefined;
  }
  // the host is done either way: a failing post-host is reported, it changes nothing on it
  await hostHook(run, 'post-host', outcome.result).catch(() => undefined);
  return outcome;
}

/** A pre-host that fails fails the host before its lock and drain. */
async function hostHook(run: HostRun, name: 'pre-host' | 'post-host', result?: string) {
  const hooks = run.deps.hooks;
  if (!hooks?.has(name)) return;
  const call = { release: run.release, host: run.host.name, ...(result ? { result } : {}) };
  const ran = await run.rec.step(
    name,
    () => hooks.run(name, name === 'pre-host' ? { ...call, signal: run.deps.signal } : call),
    (r) => ({ ok: r.ok, detail: r.detail }),
  );
  if (!ran.ok) throw new OperationError(`${run.host.name}: hook ${name} ${ran.detail}`);
}

async function handshake(
  run: HostRun,
  actions: HostActions,
  p: HostProgress,
  controller: AbortController,
): Promise<void> {
  const { deps, host, agent, rec, bounds } = run;
  const { clock, config, balancer } = deps;
  const signal = controller.signal;
  const step = async <T>(
    name: StepName,
    fn: () => Promise<T>,
    describe?: Describe<T>,
    boundMs?: number,
  ): Promise<T> => {
    signal.throwIfAborted();
    p.step = name;
    return rec.step(name, fn, describe, boundMs);
  };
  const onState = balancerWord(deps, host);

  p.lock = await step('lock', () =>
    agent.holdLock('rollout', `release ${run.release} by ${deps.who}`),
  );
  const held = p.lock;
  rec.audit = (entry) => held.audit(entry);
  void p.lock.lost.then(() => {
    p.lockLost = true;
    controller.abort(
      new OperationError(
        `${host.name}: the connection holding the host lock dropped during ${p.step}`,
      ),
    );
  });

  p.drained = true; // set first: a drain that half-happened still needs its undrain
  await step('drain', () => actions.drain()).catch(async (error: unknown) => {
    if (await actions.nothingDrained()) p.drained = false;
    throw error;
  });
  const out = await step(
    'await-out',
    () =>
      awaitRotation(
        balancer,
        host.target,
        false,
        bounds.awaitOut,
        bounds.interval,
        clock,
        signal,
        onState('await-out'),
      ),
    (w) => ({ ok: w.met, bound_ms: bounds.awaitOut }),
    bounds.awaitOut,
  );
  if (!out.met) {
    throw new OperationError(
      `${host.name}: target ${host.target} still ${describeState(out.last)} ${formatMs(bounds.awaitOut)} after the drain (the timing model's bound); is the balancer checking the health endpoint that reads the drain marker?`,
    );
  }
  await step(
    'overlap',
    () => clock.sleep(config.drain.overlap, signal),
    undefined,
    config.drain.overlap,
  );
  p.stopped = true;
  const stopped = await step(
    'stop',
    () => agent.stop(run.release),
    describeStop,
    config.drain.stopTimeout,
  );
  if (!stopped.proven) {
    // nothing is started on top of a live process: the host fails here
    p.stopUnproven = true;
    throw new OperationError(`${host.name}: ${stopProblems(stopped)}`);
  }
  await step('switch', () => {
    // sent from here on: a switch whose reply never came may have happened anyway
    p.switched = true;
    return agent.switchTo(run.release);
  });
  await step('start', () => agent.start());
  const verifyOptions = {
    successes: 1,
    timeoutMs: config.rollout.verifyTimeout,
    allowDraining: true,
    ...(run.returning ? { releaseOptional: true } : {}),
  };
  const verified = await step(
    'verify',
    () => agent.verify(verifyOptions),
    (v) => ({ ok: v.ok }),
    config.rollout.verifyTimeout,
  );
  if (!verified.ok)
    throw new OperationError(
      `${host.name}: release ${run.release} failed verify: ${summarizeVerify(verified)}`,
    );
  await step('undrain', () => actions.undrain());
  p.drained = false;
  p.exposed = true;
  // confirm's streak (verify_successes passes, spaced) runs while the balancer's
  // healthy_threshold checks bring the target back, instead of after them; one more
  // pass once the target is in rotation checks the services with traffic on them.
  const confirmOptions = {
    successes: config.rollout.verifySuccesses,
    timeoutMs: config.rollout.verifyTimeout,
    allowDraining: false,
    ...(run.returning ? { releaseOptional: true } : {}),
  };
  // a failure to even send it surfaces at the confirm step, like one of the checks'
  const streak = Promise.resolve().then(() => agent.verify(confirmOptions));
  // if await-in fails first, the rollback does not wait for it: a verify runs beside other
  // calls in the agent, and is cut short when the session ends
  streak.catch(() => undefined);
  const back = await step(
    'await-in',
    () =>
      awaitRotation(
        balancer,
        host.target,
        true,
        bounds.awaitIn,
        bounds.interval,
        clock,
        signal,
        onState('await-in'),
      ),
    (w) => ({ ok: w.met, bound_ms: bounds.awaitIn }),
    bounds.awaitIn,
  );
  if (!back.met) {
    throw new OperationError(
      `${host.name}: the balancer never put ${host.target} back in rotation within ${formatMs(bounds.awaitIn)} (last: ${describeState(back.last)}): release ${run.release} fails the balancer's health check`,
    );
  }
  const confirmed = await step(
    'confirm',
    async () => {
      const passes = await streak;
      return passes.ok ? agent.verify({ ...confirmOptions, successes: 1 }) : passes;
    },
    (v) => ({ ok: v.ok }),
    config.rollout.verifyTimeout,
  );
  if (!confirmed.ok)
    throw new OperationError(
      `${host.name}: release ${run.release} failed to confirm: ${summarizeVerify(confirmed)}`,
    );
}

/**
 * The balancer's word on the target while a step waits for it, as a debug
 * event when it changes: the progress line shows it, `--json` keeps it.
 */
function balancerWord(
  deps: RolloutDeps,
  host: HostConfig,
): (step: StepName) => (state: TargetState | undefined) => void {
  return (step) => {
    let last: string | undefined;
    return (state) => {
      const word = describeState(state);
      if (word === last) return;
      last = word;
      deps.log.emit({
        level: 'debug',
        event: 'balancer.state',
        message: `${host.target} ${word}`,
        host: host.name,
        fields: {
          step,
          target: host.target,
          state: state?.state ?? null,
          inRotation: state?.inRotation ?? null,
          ...(state?.reason ? { reason: state.reason } : {}),
        },
      });
    };
  };
}

async function unlock(run: HostRun, p: HostProgress): Promise<void> {
  if (!p.lock || p.lockLost) return;
  try {
    await run.rec.step('unlock', () => p.lock!.release());
  } catch (error) {
    const message =
      error instanceof HandoffError || error instanceof Error ? error.message : String(error);
    run.deps.log.emit({
      level: 'error',
      event: 'unlock',
      message: `could not release the host lock cleanly: ${message}`,
      host: run.host.name,
    });
  }
}
