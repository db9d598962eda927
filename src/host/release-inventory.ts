import { lstat, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { releaseDir } from './layout.js';
import { artifactSha256, findLeftovers, removeLeftovers } from './artifact.js';
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

/** A release by its directory's time: all a prune needs to choose. */
interface ReleaseAge {
  readonly id: string;
  readonly createdMs: number;
}

/** What runs, what a rollback returns to, and every release, newest first. */
interface ReleaseList<R extends { readonly id: string }> {
  readonly current: string | null;
  readonly previous: string | null;
  readonly releases: readonly R[];
}

/**
 * Every release by its directory's time, newest first, each stat at once. No
 * sizes and no artifact hashes: the prune at a rollout's end chooses by age
 * alone, and walking every file of every release (a release's node_modules)
 * was the slowest part of that end.
 */
async function releaseAges(root: string): Promise<ReleaseList<ReleaseAge>> {
  const [ids, current, previous] = await Promise.all([
    listReleases(root),
    readLiveRelease(root),
    readPreviousRelease(root),
  ]);
  const ages = await Promise.all(
    ids.map(async (id): Promise<ReleaseAge | undefined> => {
      // removed since it was listed (a prune elsewhere): not a release any more
      const info = await stat(releaseDir(root, id)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      return info && { id, createdMs: Math.round(info.mtimeMs) };
    }),
  );
  const releases = ages.filter((a): a is ReleaseAge => a !== undefined);
  releases.sort((a, b) => b.createdMs - a.createdMs || b.id.localeCompare(a.id));
  return { current, previous, releases };
}

/** `deploy releases`: every release with its age, size and what it was shipped as. */
export async function releaseInventory(root: string, now: number): Promise<ReleaseInventory> {
  const list = await releaseAges(root);
  const entries: ReleaseEntry[] = [];
  for (const { id, createdMs } of list.releases) {
    const dir = releaseDir(root, id);
    entries.push({
      id,
      createdMs,
      ageMs: Math.max(0, Math.round(now - createdMs)),
      bytes: await sizeOf(dir),
      artifactSha256: await artifactSha256(root, id),
      composeSha256: await composeSha256(root, id),
    });
  }
  return { current: list.current, previous: list.previous, releases: entries };
}

/**
 * The releases pruning removes: all but the newest `keep`, and never the
 * current or the previous one (what runs, and what a rollback returns to).
 */
export function selectPrune(
  inventory: ReleaseList<{ readonly id: string }>,
  keep: number,
): string[] {
  const kept = new Set(inventory.releases.slice(0, Math.max(1, keep)).map((r) => r.id));
  return inventory.releases
    .map((r) => r.id)
    .filter((id) => !kept.has(id) && id !== inventory.current && id !== inventory.previous);
}

/**
 * Each pruned release is renamed to a hidden name first, so it leaves the
 * list at once and a half-deleted directory is never taken for a release.
 */
export async function pruneReleases(root: string, keep: number, now: number): Promise<PruneResult> {
  const inventory = await releaseAges(root);
  const removed = selectPrune(inventory, keep);
  for (const id of removed) {
    const gone = path.join(root, 'releases', `.${id}.pruned-${process.pid}`);
    await rename(releaseDir(root, id), gone);
    await rm(gone, { recursive: true, force: true });
  }
  // and what an interrupted upload, extract or prune left behind
  await removeLeftovers(root, now);
  return keptOf(inventory, removed);
}

export interface PruneResult {
  readonly removed: string[];
  readonly kept: string[];
}

/**
 * The prune's answer when it has nothing to remove, read without changing
 * anything; undefined when there is something (pruneReleases, under the lock).
 * At a rollout's end there usually is nothing: the lock's take and release,
 * each written and synced, were most of that prune.
 */
export async function nothingToPrune(
  root: string,
  keep: number,
  now: number,
): Promise<PruneResult | undefined> {
  const [inventory, leftovers] = await Promise.all([releaseAges(root), findLeftovers(root, now)]);
  const removed = selectPrune(inventory, keep);
  return removed.length === 0 && leftovers.length === 0 ? keptOf(inventory, []) : undefined;
}

function keptOf(inventory: ReleaseList<ReleaseAge>, removed: readonly string[]): PruneResult {
  const kept = inventory.releases.map((r) => r.id).filter((id) => !removed.includes(id));
  return { removed: [...removed], kept };
}
