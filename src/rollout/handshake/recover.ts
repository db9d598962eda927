import { AgentError, BlockedError, messageOf } from '../../errors.js';
import { LOCK_LOST } from '../../protocol/lines.js';
import { formatMs } from '../../timing/duration.js';
import { rollbackBudgetMs, stepBounds } from '../../timing/step-bounds.js';
import type { HostOutcome } from '../types.js';
import type { LockLossCause } from '../../agent-client/host-agent.js';
import { watchLock } from './drain-steps.js';
import { runSteps, walkBack } from './runner.js';
import type { HostContext, HostStep } from './step.js';

/** how long a holder that said its lock went stale may take to end */
const LOCK_LOST_GRACE_MS = 5_000;

export interface RollbackResult {
  readonly ok: boolean;
  readonly release: string;
  readonly detail: string;
}

/** What every outcome of a failed host starts from, and its log. */
function failure(ctx: HostContext, error: unknown) {
  const { run, progress: p } = ctx;
  const { host, rec, deps } = run;
  const interrupted = deps.signal.aborted;
  const reason = interrupted ? `interrupted during ${p.step}` : messageOf(error);
  return {
    interrupted,
    base: { host: host.name, steps: rec.steps, stoppedAt: p.step, error: reason },
    result: interrupted ? ('interrupted' as const) : ('failed' as const),
    blocked: error instanceof BlockedError ? { blocked: true } : {},
    log: (level: 'info' | 'error', message: string): void =>
      deps.log.emit({ level, event: 'recover', message, host: host.name }),
  };
}

/**
 * Undo what a failed or interrupted host left behind, by walking back from the
 * last step reached. Before `stop` the old release never stopped serving:
 * undrain and it is back. From `stop` on, roll back to the previous release
 * (unless told not to) and undrain only if it is healthy. Nothing here
 * throws: every outcome is reported.
 */
export async function recover(ctx: HostContext, error: unknown): Promise<HostOutcome> {
  const { run, progress: p } = ctx;
  const { host, rec, deps } = run;
  const { base, result, blocked, log } = failure(ctx, error);

  if (!p.lock) return { ...base, result, leftDrained: false, ...blocked };
  // the lock is gone and cannot be had back: nothing more is done on the host, and it says why
  const untilFree = p.drained
    ? `; left DRAINED: 'deploy undrain ${host.name}' once it is free, or the next 'deploy rollout' repairs it`
    : '';
  const giveUp = (message: string): HostOutcome => {
    log('error', message);
    return { ...base, error: message, result, leftDrained: p.drained, lockLost: true };
  };
  // the agent said the step failed because the lock went stale: its holder is ending
  if (!p.lockLost && error instanceof AgentError && error.code === LOCK_LOST) {
    await Promise.race([p.lock.lost, deps.clock.sleep(LOCK_LOST_GRACE_MS).catch(() => undefined)]);
    // a holder that says its lock is gone and stays: walking back through it would change a
    // host whose lock another taker may hold now, and taking a new one needs it gone
    if (!p.lockLost)
      return giveUp(
        `the agent lost the host lock during ${p.step} (${messageOf(error)}) and its holder did not end within ${formatMs(LOCK_LOST_GRACE_MS)}: nothing more was done on the host${untilFree}; check it with 'deploy status --hosts ${host.name}'`,
      );
  }
  if (!p.lockLost) return await walkBackFrom(ctx, error);
  const why = await p.loss?.why();
  if (!why?.connected) {
    // no connection left to undrain with: say so, or a drained host looks like a finished one
    const drained = p.drained
      ? `; left DRAINED: the next 'deploy rollout' repairs it, or 'deploy undrain ${host.name}'`
      : '';
    log(
      'error',
      `lost the connection during ${p.step}; the agent released the lock${drained}. Check the host with 'deploy status --hosts ${host.name}'`,
    );
    return { ...base, result, leftDrained: p.drained, lockLost: true };
  }
  // the connection is up: take the lock again through a new holder, and walk back as after any failure
  const lost = lostWhileConnected(p.step, why);
  const taking = p.lockedAs ?? { what: 'rollout', message: `rolling back, by ${deps.who}` };
  try {
    const lock = await run.agent.holdLock(
      taking.what,
      `${taking.message} (taken again to roll back)`,
    );
    watchLock(ctx, lock);
    rec.audit = (entry) => lock.audit(entry);
  } catch (retakeError) {
    return giveUp(
      `${lost}; could not take it again to roll back (${messageOf(retakeError)})${untilFree}`,
    );
  }
  log('error', `${lost}; took it again over the same connection to roll the host back`);
  const outcome = await walkBackFrom(ctx, error);
  const back = outcome.leftDrained
    ? 'it is left DRAINED (see the log above)'
    : !p.stopped
      ? 'rolled back: undrained, its release never stopped'
      : `rolled back to ${run.liveBefore ?? 'no release'}`;
  return {
    ...outcome,
    result: outcome.result === 'rolled-back' ? 'failed' : outcome.result,
    lockLost: true,
    error: `${lost}; took it again over the same connection, ${back}`,
  };
}

/** What a lock lost while its connection stayed up says: staleness (the agent's own word), or why the holder ended. */
function lostWhileConnected(step: string, why: LockLossCause): string {
  if (why.said?.error)
    return `lost the host lock to staleness during ${step} (the agent: ${why.said.error})`;
  if (why.said?.reason === 'silence')
    return `lost the host lock during ${step}: the agent heard no heartbeat and ended its session`;
  const said = why.said?.reason ? ` (${why.said.reason})` : '';
  return `lost the host lock during ${step}: its holder ended${said} while the connection was up`;
}

/**
 * Walk back from the last step reached, with the lock held. Before `stop` the
 * old release never stopped serving: undrain and it is back. From `stop` on,
 * roll back to the previous release (unless told not to) and undrain only if
 * it is healthy.
 */
async function walkBackFrom(ctx: HostContext, error: unknown): Promise<HostOutcome> {
  const { run, progress: p } = ctx;
  const { host, deps } = run;
  const { interrupted, base, result, blocked, log } = failure(ctx, error);
  // the walk-back has its own time budget: the Ctrl-C that may have caused it must not cut it short
  ctx.signal = AbortSignal.timeout(rollbackBudgetMs(stepBounds(deps.config, run.bounds)));
  // and its verifies are waited for, a second Ctrl-C or not: they decide the undrain
  ctx.cut = undefined;
  const back = walkBack(ctx);
  if (!p.stopped) {
    // the balancer refused the drain before anything changed (a deregister denied): exit 3
    if (!p.drained) return { ...base, result, leftDrained: false, ...blocked };
    try {
      await runSteps(ctx, back.steps);
      return { ...base, result, leftDrained: false };
    } catch (undrainError) {
      log(
        'error',
        `left DRAINED: undrain failed: ${messageOf(undrainError)}; run 'deploy undrain ${host.name}' once it is reachable`,
      );
      return { ...base, result, leftDrained: true };
    }
  }
  if (back.held) {
    try {
      // undrained already (failed in await-in or confirm): take the failed release out
      await runSteps(ctx, back.steps);
    } catch (drainError) {
      log(
        'error',
        `could not drain it again (${messageOf(drainError)}): it may still get traffic; 'deploy drain ${host.name}'`,
      );
      return { ...base, result, leftDrained: false };
    }
    log(
      'error',
      `left DRAINED on purpose (--no-rollback / rollout.rollback: false) for inspection; 'deploy undrain ${host.name}' puts it back`,
    );
    return { ...base, result, leftDrained: true };
  }
  const rolled = await rollBack(ctx, back.steps);
  if (rolled.ok) {
    log('info', `rolled back to ${rolled.release}: healthy and back in rotation`);
    return { ...base, result: interrupted ? 'interrupted' : 'rolled-back', leftDrained: false };
  }
  log(
    'error',
    `${p.drained ? 'left DRAINED' : 'NOT drained'}: rollback did not bring it back healthy (${rolled.detail}); inspect it with 'deploy verify --hosts ${host.name}'`,
  );
  return { ...base, result, leftDrained: p.drained };
}

/** The walk-back from `stop` on, recorded as one `rollback` step toward the release that ran before. */
async function rollBack(ctx: HostContext, steps: readonly HostStep[]): Promise<RollbackResult> {
  const release = ctx.run.liveBefore ?? 'no release';
  const failed = (error: unknown): RollbackResult => ({
    ok: false,
    release,
    detail: messageOf(error),
  });
  try {
    return await ctx.run.rec.step(
      'rollback',
      async (): Promise<RollbackResult> => {
        try {
          await runSteps(ctx, steps, { record: false });
        } catch (error) {
          return failed(error);
        }
        // undrained but the balancer never took it back within await-in's bound: not a rollback that worked
        if (ctx.results.get('await-in') === false)
          return {
            ok: false,
            release,
            detail: `undrained, but the balancer did not put ${ctx.run.host.target} back in rotation within ${formatMs(ctx.run.bounds.awaitIn)}`,
          };
        return { ok: true, release, detail: 'back in rotation' };
      },
      (r) => ({ ok: r.ok, detail: `${release}: ${r.detail}` }),
    );
  } catch (error) {
    return failed(error);
  }
}
