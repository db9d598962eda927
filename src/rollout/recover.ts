import { BlockedError, HandoffError } from '../errors.js';
import type { HostActions } from './host-actions.js';
import type { HostProgress, HostRun } from './host-deploy.js';
import { rollbackHost } from './rollback.js';
import type { HostOutcome } from './types.js';

function messageOf(error: unknown): string {
  return error instanceof HandoffError || error instanceof Error ? error.message : String(error);
}

/**
 * Undo what a failed or interrupted host left behind. Before `stop` the old
 * release never stopped serving: undrain and it is back. From `stop` on, roll
 * back to the previous release (unless told not to) and undrain only if it is
 * healthy. Nothing here throws: every outcome is reported.
 */
export async function recover(
  run: HostRun,
  actions: HostActions,
  p: HostProgress,
  error: unknown,
): Promise<HostOutcome> {
  const { host, rec, deps } = run;
  const interrupted = deps.signal.aborted;
  const reason = interrupted ? `interrupted during ${p.step}` : messageOf(error);
  const base = { host: host.name, steps: rec.steps, stoppedAt: p.step, error: reason };
  const result = interrupted ? 'interrupted' : 'failed';
  const log = (level: 'info' | 'error', message: string): void =>
    deps.log.emit({ level, event: 'recover', message, host: host.name });

  if (!p.lock) {
    return {
      ...base,
      result,
      leftDrained: false,
      ...(error instanceof BlockedError ? { blocked: true } : {}),
    };
  }
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
  if (!p.stopped) {
    // the balancer refused the drain before anything changed (a deregister denied): exit 3
    if (!p.drained)
      return {
        ...base,
        result,
        leftDrained: false,
        ...(error instanceof BlockedError ? { blocked: true } : {}),
      };
    try {
      await rec.step('undrain', () => actions.undrain());
      return { ...base, result, leftDrained: false };
    } catch (undrainError) {
      log(
        'error',
        `left DRAINED: undrain failed: ${messageOf(undrainError)}; run 'deploy undrain ${host.name}' once it is reachable`,
      );
      return { ...base, result, leftDrained: true };
    }
  }
  if (!run.rollback) {
    if (!p.drained) {
      // undrained already (failed in await-in or confirm): take the failed release out
      try {
        await rec.step('drain', () => actions.drain());
        p.drained = true;
      } catch (drainError) {
        log(
          'error',
          `could not drain it again (${messageOf(drainError)}): it may still get traffic; 'deploy drain ${host.name}'`,
        );
        return { ...base, result, leftDrained: false };
      }
    }
    log(
      'error',
      `left DRAINED on purpose (--no-rollback / rollout.rollback: false) for inspection; 'deploy undrain ${host.name}' puts it back`,
    );
    return { ...base, result, leftDrained: true };
  }
  const rolled = await rollbackHost(run, actions, p);
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
