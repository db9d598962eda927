import { timerMs } from '../config/duration.js';
import { OperationError } from '../errors.js';
import type { HostActions } from './host-actions.js';
import { stopProblems, summarizeVerify } from './host-actions.js';
import type { HostProgress, HostRun } from './host-deploy.js';
import { awaitRotation, type Bounds } from './rotation.js';
import type { Config } from '../config/types.js';

export interface RollbackResult {
  readonly ok: boolean;
  readonly release: string;
  readonly detail: string;
}

/** A rollback gets its own time budget: the Ctrl-C that may have caused it must not cut it short. */
function rollbackSignal(run: HostRun): AbortSignal {
  return AbortSignal.timeout(rollbackBudgetMs(run.deps.config, run.bounds));
}

/** The whole handshake's worst case and a minute, within what a timer holds. */
export function rollbackBudgetMs(
  config: Pick<Config, 'drain' | 'rollout'>,
  bounds: Pick<Bounds, 'awaitOut' | 'awaitIn'>,
): number {
  return timerMs(
    bounds.awaitOut +
      config.drain.overlap +
      config.drain.stopTimeout +
      config.rollout.verifyTimeout +
      bounds.awaitIn +
      60_000,
  );
}

/**
 * Switch a host back to the release it ran before, with the same handshake:
 * if the new release was exposed to the balancer, take it out and let it drain
 * before stopping; undrain only when the old release verifies.
 */
export async function rollbackHost(
  run: HostRun,
  actions: HostActions,
  p: HostProgress,
): Promise<RollbackResult> {
  const { deps, host, agent, rec, bounds } = run;
  const { clock, config, balancer } = deps;
  const signal = rollbackSignal(run);
  // what ran before this rollout touched the host (preflight), not what a
  // switch reply said: a switch that timed out may have happened anyway
  const previous = run.liveBefore;
  const release = previous ?? 'no release';
  try {
    return await rec.step(
      'rollback',
      async () => {
        if (!p.drained) {
          await actions.drain();
          p.drained = true;
        }
        if (p.stopUnproven && !p.switched) return restartWhatStopped(run, actions, p);
        if (previous === null) {
          throw new OperationError(
            'the host ran no release before this rollout: nothing to roll back to',
          );
        }
        if (p.exposed) {
          const out = await awaitRotation(
            balancer,
            host.target,
            false,
            bounds.awaitOut,
            bounds.interval,
            clock,
            signal,
          );
          // never stop what the balancer still routes to
          if (!out.met)
            throw new OperationError(
              `${host.target} is still in rotation after the drain; not stopping it`,
            );
          await clock.sleep(config.drain.overlap, signal);
        }
        const stopped = await agent.stop(previous);
        // never start the old release on top of the new one
        if (!stopped.proven) return { ok: false, release, detail: stopProblems(stopped) };
        await agent.switchTo(previous);
        await agent.start();
        return verifyAndUndrain(run, actions, p, release, signal);
      },
      (r) => ({ ok: r.ok, detail: `${release}: ${r.detail}` }),
    );
  } catch (error) {
    return { ok: false, release, detail: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The stop did not prove every service stopped, and nothing was switched:
 * what still runs is the release that ran before. Start again what its status
 * says is stopped, leave what it says runs, then verify and undrain as usual.
 * A host that ran no release before (adoption) has nothing to start: it stays
 * drained, with the old processes still serving, for a person to look at.
 */
async function restartWhatStopped(
  run: HostRun,
  actions: HostActions,
  p: HostProgress,
): Promise<RollbackResult> {
  if (run.liveBefore === null)
    return {
      ok: false,
      release: 'no release',
      detail:
        'the services found running before the first release did not all stop, and no release ran before to start again: stop them by hand, then run the rollout again',
    };
  await run.agent.start(undefined, { ifStopped: true });
  return verifyAndUndrain(run, actions, p, run.liveBefore, rollbackSignal(run));
}

async function verifyAndUndrain(
  run: HostRun,
  actions: HostActions,
  p: HostProgress,
  release: string,
  signal: AbortSignal,
): Promise<RollbackResult> {
  const { deps, host, agent, bounds } = run;
  const verified = await agent.verify({
    successes: 1,
    timeoutMs: deps.config.rollout.verifyTimeout,
    allowDraining: true,
    // the release rolled back to may predate x-release; another id still fails
    releaseOptional: true,
  });
  if (!verified.ok) return { ok: false, release, detail: summarizeVerify(verified) };
  await actions.undrain();
  p.drained = false;
  const back = await awaitRotation(
    deps.balancer,
    host.target,
    true,
    bounds.awaitIn,
    bounds.interval,
    deps.clock,
    signal,
  );
  return back.met
    ? { ok: true, release, detail: 'back in rotation' }
    : { ok: true, release, detail: 'undrained, not yet back in rotation' };
}
