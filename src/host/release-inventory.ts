import { lstat, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { releaseDir } from './layout.js';
import { artifactSha256, removeLeftovers } from './artifact.js';
import { composeSha256 } from './release-files.js';
import { listReleases, readLiveRelease, readPreviousRelease } from './releases.js';
import type { ReleaseEntry, ReleaseInventory } from '../protocol/results.js';

export type { ReleaseEntry, ReleaseInventory };

/** Bytes under `dir`, symlinks counted as themselves and never followed. */
async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await sizeOf(full);
    else total += (await lstat(full).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

export async function releaseInventory(root: string, now: number): Promise<ReleaseInventory> {
  const entries: ReleaseEntry[] = [];
  for (const id of await listReleases(root)) {
    const dir = releaseDir(root, id);
    // removed since it was listed (a prune elsewhere): not a release any more
    const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (!info) continue;
    const createdMs = info.mtimeMs;
    entries.push({
      id,
      createdMs: Math.round(createdMs),
      ageMs: Math.max(0, Math.round(now - createdMs)),
      bytes: await sizeOf(dir),
      artifactSha256: await artifactSha256(root, id),
      composeSha256: await composeSha256(root, id),
    });
  }
  entries.sort((a, b) => b.createdMs - a.createdMs || b.id.localeCompare(a.id));
  return {
    current: await readLiveRelease(root),
    previous: await readPreviousRelease(root),
    releases: entries,
  };
}

/**
 * The releases pruning removes: all but the newest `keep`, and never the
 * current or the previous one (what runs, and what a rollback returns to).
 */
export function selectPrune(inventory: ReleaseInventory, keep: number): string[] {
  const kept = new Set(inventory.releases.slice(0, Math.max(1, keep)).map((r) => r.id));
  return inventory.releases
    .map((r) => r.id)
    .filter((id) => !kept.has(id) && id !== inventory.current && id !== inventory.previous);
}

/**
 * Each pruned release is renamed to a hidden name first, so it leaves the
 * list at once and a half-deleted directory is never taken for a release.
 */
export async function pruneReleases(
  root: string,
  keep: number,
  now: number,
): Promise<{ removed: string[]; kept: string[] }> {
  const inventory = await releaseInventory(root, now);
  const removed = selectPrune(inventory, keep);
  for (const id of removed) {
    const gone = path.join(root, 'releases', `.${id}.pruned-${process.pid}`);
    await rename(releaseDir(root, id), gone);
    await rm(gone, { recursive: true, force: true });
  }
  // and what an interrupted upload, extract or prune left behind
  await removeLeftovers(root, now);
  const kept = inventory.releases.map((r) => r.id).filter((id) => !removed.includes(id));
  return { removed, kept };
}
