import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { UsageError } from '../../../errors.js';
import { artifactState, checkSha256, installArtifact } from '../../artifact.js';
import { createHostExec } from '../../exec.js';
import { nothingToPrune, pruneReleases, releaseInventory } from '../../release-inventory.js';
import { acquireHostLock, retriesFor } from '../../lock.js';

/**
 * `artifact --release ID --sha256 X`: present already (skip the upload), or
 * where to upload it; with `--file` (the path handed out), install the upload.
 */
export function artifact(
  config: Config,
  release: string,
  sha: string,
  file: string | undefined,
): Promise<unknown> {
  checkSha256(sha);
  const root = config.host.root;
  if (file === undefined) return artifactState(root, release, sha);
  return installArtifact(root, release, sha, file, createHostExec());
}

export function releases(config: Config, clock: Clock): Promise<unknown> {
  return releaseInventory(config.host.root, clock.now());
}

/**
 * Under the host lock, like every change on a host: a watchdog tick or a
 * `deploy lock exec` script never finds a release directory vanishing under it.
 * A holder that keeps it past PRUNE_LOCK_WAIT_MS fails the prune (a warning
 * for the rollout, which succeeded already); the next rollout prunes again.
 */
export async function prune(
  config: Config,
  clock: Clock,
  keep: number,
  lockWaitMs = PRUNE_LOCK_WAIT_MS,
): Promise<unknown> {
  if (keep < 1) throw new UsageError('--keep: at least 1');
  // nothing to remove, nothing changes: no lock to wait for, take, write and sync
  const unchanged = await nothingToPrune(config.host.root, keep, clock.now());
  if (unchanged) return unchanged;
  const lock = await acquireHostLock(config.host.lock, {
    what: 'prune',
    message: `keeping the newest ${keep} releases`,
    retries: retriesFor(lockWaitMs),
    clock,
  });
  try {
    return await pruneReleases(config.host.root, keep, clock.now());
  } finally {
    await lock.release();
  }
}

/** a watchdog tick holds the lock for about a second; a lock exec script may hold it longer */
export const PRUNE_LOCK_WAIT_MS = 10_000;
