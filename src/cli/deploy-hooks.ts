import type { HandoffError } from '../errors.js';
import { BlockedError, OperationError, messageOf } from '../errors.js';
import type { Hooks } from '../hooks/hooks.js';
import type { Log } from '../log.js';
import type { RolloutResult } from '../rollout/types.js';

/** post-deploy's HANDOFF_RESULT: ok, failed or blocked (refused before a host changed). */
export function deployResult(result: RolloutResult | undefined, error: unknown): string {
  if (result) {
    if (result.ok) return 'ok';
    return result.blocked ? 'blocked' : 'failed';
  }
  return error instanceof BlockedError ? 'blocked' : 'failed';
}

/**
 * pre-deploy, then the rollout, then post-deploy whatever happened. A
 * pre-deploy that fails refuses the deploy (exit 3) before any host is
 * touched; a post-deploy that fails is reported and changes nothing.
 */
export async function withDeployHooks(
  hooks: Hooks,
  release: string,
  log: Log,
  signal: AbortSignal,
  deploy: () => Promise<RolloutResult>,
): Promise<RolloutResult> {
  const pre = await hooks.run('pre-deploy', { release, signal });
  if (!pre.ok)
    throw new BlockedError(`hook pre-deploy ${pre.detail}: nothing was touched on any host`);
  let result: RolloutResult | undefined;
  let error: unknown;
  try {
    result = await deploy();
    return result;
  } catch (e) {
    error = e;
    throw e;
  } finally {
    const post = await hooks
      .run('post-deploy', { release, result: deployResult(result, error) })
      .catch((e: unknown) => ({ ok: false, detail: messageOf(e) }));
    if (!post.ok)
      log.emit({ level: 'warn', event: 'hook', message: `hook post-deploy ${post.detail}` });
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
