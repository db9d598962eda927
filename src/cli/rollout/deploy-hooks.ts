import type { HandoffError } from '../../errors.js';
import { BlockedError, OperationError, messageOf } from '../../errors.js';
import type { Hooks } from '../../hooks/hooks.js';
import type { Log } from '../../log.js';
import type { RolloutResult } from '../../rollout/types.js';

/**
 * post-deploy's HANDOFF_RESULT: ok, failed, blocked (refused before a host
 * changed: by the fleet lease, pre-deploy or preflight) or superseded.
 */
export function deployResult(result: RolloutResult | undefined, error: unknown): string {
  if (result) {
    if (result.ok) return 'ok';
    return result.blocked ? 'blocked' : 'failed';
  }
  return error instanceof BlockedError ? 'blocked' : 'failed';
}

/** What a rollout holding the fleet lease runs its hooks through (withDeployHooks). */
export interface DeployHooks {
  /** pre-deploy, then `deploy`, then post-deploy with its result, still inside the lease */
  around(signal: AbortSignal, deploy: () => Promise<RolloutResult>): Promise<RolloutResult>;
  /** post-deploy for a rollout that stood down without deploying */
  stoodDown(result: 'superseded'): Promise<void>;
}

/**
 * post-deploy runs once for every rollout that got past its input checks,
 * whatever ended it: a notification hook hears of a refusal too. Inside the
 * fleet lease, `around` runs pre-deploy (which refuses the deploy, exit 3,
 * before any host is touched) and post-deploy before the lease is given
 * back; a rollout that never held the lease (another holds it, a queue
 * cancelled) runs no pre-deploy and post-deploy with `blocked`. A post-deploy
 * that fails is a warning and changes nothing.
 */
export async function withDeployHooks(
  hooks: Hooks,
  release: string,
  log: Log,
  run: (deployHooks: DeployHooks) => Promise<void>,
): Promise<void> {
  let posted = false;
  const post = async (result: string): Promise<void> => {
    if (posted) return;
    posted = true;
    const ran = await hooks
      .run('post-deploy', { release, result })
      .catch((e: unknown) => ({ ok: false, detail: messageOf(e) }));
    if (!ran.ok)
      log.emit({ level: 'warn', event: 'hook', message: `hook post-deploy ${ran.detail}` });
  };
  const around = async (
    signal: AbortSignal,
    deploy: () => Promise<RolloutResult>,
  ): Promise<RolloutResult> => {
    let result: RolloutResult | undefined;
    let error: unknown;
    try {
      const pre = await hooks.run('pre-deploy', { release, signal });
      if (!pre.ok)
        throw new BlockedError(`hook pre-deploy ${pre.detail}: nothing was touched on any host`);
      result = await deploy();
      return result;
    } catch (e) {
      error = e;
      throw e;
    } finally {
      await post(deployResult(result, error));
    }
  };
  try {
    await run({ around, stoodDown: post });
  } catch (e) {
    await post(deployResult(undefined, e));
    throw e;
  }
}

/** The exit of a finished rollout that did not succeed. */
export function rolloutFailure(result: RolloutResult, message: string): HandoffError {
  if (result.blocked) return new BlockedError(result.blocked);
  // a release that cannot be prepared is the release's failure, not a refusal
  if (result.prepareFailed) return new OperationError(result.prepareFailed);
  const failed = result.hosts.filter((h) => h.result !== 'deployed');
  // every host that failed was refused before anything changed on it (its lock was taken)
  if (failed.length > 0 && failed.every((h) => h.blocked)) return new BlockedError(message);
  return new OperationError(message);
}
