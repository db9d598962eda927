import { timerMs } from '../../config/duration.js';
import type { Config } from '../../config/types.js';
import { BlockedError, messageOf } from '../../errors.js';
import { formatMs } from '../../timing/duration.js';
import type { Bounds } from '../rotation.js';
import type { HostOutcome } from '../types.js';
import { runSteps, walkBack } from './runner.js';
import type { HostContext, HostStep } from './step.js';

export interface RollbackResult {
  readonly ok: boolean;
  readonly release: string;
  readonly detail: string;
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
 * Undo what a failed or interrupted host left behind, by walking back from the
 * last step reached. Before `stop` the old release never stopped serving:
 * undrain and it is back. From `stop` on, roll back to the previous release
 * (unless told not to) and undrain only if it is healthy. Nothing here
 * throws: every outcome is reported.
 */
export async function recover(ctx: HostContext, error: unknown): Promise<HostOutcome> {
  const { run, progress: p } = ctx;
  const { host, rec, deps } = run;
  const interrupted = deps.signal.aborted;
  const reason = interrupted ? `interrupted during ${p.step}` : messageOf(error);
  const base = { host: host.name, steps: rec.steps, stoppedAt: p.step, error: reason };
  const result = interrupted ? 'interrupted' : 'failed';
  const blocked = error instanceof BlockedError ? { blocked: true } : {};
  const log = (level: 'info' | 'error', message: string): void =>
    deps.log.emit({ level, event: 'recover', message, host: host.name });

  if (!p.lock) return { ...base, result, leftDrained: false, ...blocked };
  if (p.lockLost) {
    // no connection left to undrain with: say so, or a drained host looks like a finished one
    const drained = p.drained
      ? `; left DRAINED: the next 'deploy rollout' repairs it, or 'deploy undrain ${host.name}'`
      : '';
    log(
      'error',
      `lost the connection during ${p.step}; the agent released the lock${drained}. Check the host with 'deploy status --hosts ${host.name}'`,
    );
    return { ...base, result, leftDrained: p.drained };
  }
  // the walk-back has its own time budget: the Ctrl-C that may have caused it must not cut it short
  ctx.signal = AbortSignal.timeout(rollbackBudgetMs(deps.config, run.bounds));
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
        if (ctx.inRotation === false)
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
