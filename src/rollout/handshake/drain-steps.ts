import type { HeldLock } from '../../agent-client/host-agent.js';
import type { TargetState } from '../../balancer/balancer.js';
import { messageOf, OperationError } from '../../errors.js';
import { formatMs } from '../../timing/duration.js';
import { awaitRotation, describeState, type RotationWait } from '../rotation.js';
import type { HostContext, HostStep, StepVerdict } from './step.js';
import { balancerWord } from './balancer-word.js';

/** Take the host lock through a long-lived holder; its loss ends the handshake's waits at once. */
export function lockStep(
  what: string,
  message: (ctx: HostContext) => string,
  options: { audit?: boolean } = {},
): HostStep {
  return {
    name: 'lock',
    changes: 'locked',
    async run(ctx) {
      const taking = { what, message: message(ctx) };
      // the receipt's window opens beside the lock (a read of the balancer's counters): it
      // must be open before the drain, and the lock's round trip need not wait for it
      const window = ctx.run.receipt?.opened();
      // a lock refused first is the failure to report; the window's error is thrown by close
      window?.catch(() => undefined);
      watchLock(ctx, await ctx.run.agent.holdLock(taking.what, taking.message));
      ctx.progress.lockedAs = taking;
      await window;
    },
    after: (ctx) => {
      const lock = ctx.progress.lock;
      if (lock && options.audit !== false) ctx.run.rec.audit = (entry) => lock.audit(entry);
    },
  };
}

/**
 * The lock this run holds now (taken by its lock step, or taken again after it
 * was lost): the audit keeps going through whichever holds it, and its loss
 * ends the handshake's waits at once.
 */
export function watchLock(ctx: HostContext, lock: HeldLock): void {
  const { run, progress: p } = ctx;
  p.lock = lock;
  p.lockLost = false;
  p.loss = undefined;
  void lock.lost.then((loss) => {
    if (p.lock !== lock) return;
    p.lockLost = true;
    p.loss = loss;
    ctx.abort(
      new OperationError(
        `${run.host.name}: the connection holding the host lock dropped during ${p.step}`,
      ),
    );
  });
}

/** Release the lock now, mid-list (deploy drain waits for the balancer without holding it). */
export function unlockStep(options: { quiet?: boolean } = {}): HostStep {
  return {
    name: 'unlock',
    ...(options.quiet ? { quiet: true } : {}),
    async run(ctx) {
      await releaseLock(ctx);
      ctx.run.rec.audit = undefined;
    },
  };
}

/** the lock is still this run's: what the end of a list releases */
const holding = (ctx: HostContext): boolean =>
  ctx.progress.lock !== undefined && !ctx.progress.lockLost;

/**
 * What ends every list, run by the runner whatever happened (after a failure's
 * walk-back): the receipt window closes (its figures go to the audit, through
 * the lock's holder), then the lock goes. An unlock that fails is said on the
 * log and recorded, never thrown: it must not hide what happened before it.
 * Quiet: not recorded as a step (deploy drain, deploy undrain).
 */
export function listEnd(options: { quiet?: boolean } = {}): HostStep[] {
  return [
    {
      name: 'close-receipt',
      quiet: true,
      when: holding,
      async run(ctx) {
        const receipt = await ctx.run.receipt?.close().catch(() => undefined);
        if (receipt) ctx.run.rec.note('receipt', receipt);
      },
    },
    {
      name: 'unlock',
      ...(options.quiet ? { quiet: true } : {}),
      when: holding,
      async run(ctx): Promise<StepVerdict | void> {
        try {
          await releaseLock(ctx);
        } catch (error) {
          const message = `could not release the host lock cleanly: ${messageOf(error)}`;
          ctx.run.deps.log.emit({
            level: 'error',
            event: 'unlock',
            message,
            host: ctx.run.host.name,
          });
          return { ok: false, detail: messageOf(error) };
        }
      },
    },
  ];
}

/** Release the lock if this run still holds it (the audit goes through the holder: it ends too). */
export async function releaseLock(ctx: HostContext): Promise<void> {
  const p = ctx.progress;
  const lock = p.lock;
  if (!lock || p.lockLost) return;
  p.lock = undefined;
  await lock.release();
}

/** Write the drain marker (deregister first: a refused deregister leaves no marker). */
export function drainStep(): HostStep {
  return {
    name: 'drain',
    changes: 'drained',
    async run(ctx) {
      const p = ctx.progress;
      p.drained = true; // set first: a drain that half-happened still needs its undrain
      try {
        await ctx.actions.drain();
      } catch (error) {
        if (await ctx.actions.nothingDrained()) {
          p.drained = false;
          ctx.reached.pop();
        }
        throw error;
      }
    },
  };
}

/**
 * Ask the drained host for the checks' warm-up (host/checks/warm.ts): a pass
 * of its HTTP checks whose answers nobody reads, so verify's first request is
 * not the agent's first. The host runs it beside await-out, and nothing waits
 * for its answer: the step takes no time of the host's, is no line of its
 * own, and the dry run shows its bound beside await-out's.
 */
export function warmStep(boundMs: number): HostStep<'warm'> {
  return {
    name: 'warm',
    boundMs,
    beside: 'await-out',
    quiet: true,
    run(ctx) {
      // its answer is nobody's, and so is a failure to ask: a lost lock fails the next step
      void ctx.run.agent.run('warm', {}).catch(() => undefined);
      return Promise.resolve();
    },
  };
}

/** Remove the drain marker (register first; the marker goes whatever the balancer says). */
export function undrainStep(): HostStep<'undrain'> {
  return {
    name: 'undrain',
    changes: 'undrained',
    async run(ctx) {
      await ctx.actions.undrain();
      ctx.progress.drained = false;
    },
  };
}

/** Write the drain marker again (the walk-back of an undrain), before anything stops. */
export function redrainStep(): HostStep {
  return {
    name: 'drain',
    changes: 'drained',
    async run(ctx) {
      await ctx.actions.drain();
      ctx.progress.drained = true;
    },
  };
}

type WaitMessage = (ctx: HostContext, wait: RotationWait, bound: number) => string;

/**
 * Poll the balancer until the target is out of (or back in) rotation, within
 * the model's bound; await-in hands on whether it got there (a rollback's
 * verdict reads it).
 */
export function awaitStep(
  want: 'out' | 'in',
  boundMs: number,
  failure: WaitMessage | undefined,
): HostStep<'await-out' | 'await-in'> {
  const name = want === 'out' ? 'await-out' : 'await-in';
  return {
    name,
    boundMs,
    async run(ctx): Promise<StepVerdict<typeof name>> {
      const { deps, host, bounds } = ctx.run;
      const word = balancerWord(deps, host)(name);
      const each = agreement(want === 'in', deps.clock.now());
      const wait = await awaitRotation(
        deps.balancer,
        host.target,
        want === 'in',
        boundMs,
        bounds.interval,
        deps.clock,
        ctx.signal,
        (state) => {
          word(state);
          each.see(state, deps.clock.now());
        },
      );
      const error =
        !wait.met && failure ? new OperationError(failure(ctx, wait, boundMs)) : undefined;
      const balancers = each.result();
      return {
        ok: wait.met,
        bound_ms: boundMs,
        ...(balancers ? { balancers } : {}),
        ...(error ? { error } : {}),
        ...(want === 'in' ? { hands: wait.met } : {}),
      };
    },
  };
}

/**
 * Through several balancers: when each one first agreed (had the target out,
 * or back in), in ms since the wait began; null for one that never did.
 */
function agreement(want: boolean, startedAt: number) {
  const at = new Map<string, number | null>();
  return {
    see(state: TargetState | undefined, now: number): void {
      for (const [name, s] of state?.each ?? []) {
        if (!at.has(name)) at.set(name, null);
        if (at.get(name) === null && s.inRotation === want) at.set(name, now - startedAt);
      }
    },
    result: (): Record<string, number | null> | undefined =>
      at.size > 0 ? Object.fromEntries(at) : undefined,
  };
}

export const outMessage: WaitMessage = ({ run }, wait, bound) =>
  `${run.host.name}: target ${run.host.target} still ${describeState(wait.last)} ${formatMs(bound)} after the drain (the timing model's bound); is the balancer checking the health endpoint that reads the drain marker?`;

export const inMessage: WaitMessage = ({ run }, wait, bound) =>
  `${run.host.name}: the balancer never put ${run.host.target} back in rotation within ${formatMs(bound)} (last: ${describeState(wait.last)}): release ${run.release} fails the balancer's health check`;

/** Keep serving what the balancer sent before it took the host out. */
export function overlapStep(overlapMs: number): HostStep {
  return {
    name: 'overlap',
    boundMs: overlapMs,
    async run(ctx) {
      ctx.run.waiting?.();
      await ctx.run.deps.clock.sleep(overlapMs, ctx.signal);
    },
  };
}
