import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { UsageError } from '../../../errors.js';
import { artifactState, checkSha256, installArtifact } from '../../artifact.js';
import { createHostExec } from '../../exec.js';
import { pruneReleases, releaseInventory } from '../../release-inventory.js';

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

export function prune(config: Config, clock: Clock, keep: number): Promise<unknown> {
  if (keep < 1) throw new UsageError('--keep: at least 1');
  return pruneReleases(config.host.root, keep, clock.now());
}
