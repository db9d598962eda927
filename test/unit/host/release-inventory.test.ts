import { createHash } from 'node:crypto';
import { mkdir, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  pruneReleases,
  releaseInventory,
  selectPrune,
  type ReleaseInventory,
} from '../../../src/host/release-inventory.js';
import { scratchDir } from '../../support/scratch.js';

const inv = (ids: string[], current: string | null, previous: string | null): ReleaseInventory => ({
  current,
  previous,
  releases: ids.map((id) => ({
    id,
    createdMs: 0,
    ageMs: 0,
    bytes: 0,
    artifactSha256: null,
    composeSha256: null,
  })),
});

describe('selectPrune', () => {
  it('keeps the newest N', () => {
    expect(selectPrune(inv(['r5', 'r4', 'r3', 'r2', 'r1'], 'r5', 'r4'), 2)).toEqual([
      'r3',
      'r2',
      'r1',
    ]);
  });

  it('never removes current or previous, however old', () => {
    // rolled back to r1: current is the oldest, previous the second oldest
    expect(selectPrune(inv(['r5', 'r4', 'r3', 'r2', 'r1'], 'r1', 'r2'), 2)).toEqual(['r3']);
  });

  it('removes nothing when there are no more than N', () => {
    expect(selectPrune(inv(['r2', 'r1'], 'r2', 'r1'), 5)).toEqual([]);
  });
});

describe('pruneReleases', () => {
  it('removes old release directories by age, never the linked ones', async () => {
    const root = await scratchDir('handoff-prune-');
    const at = (n: number) => new Date(Date.UTC(2026, 0, n));
    for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) {
      const dir = path.join(root, 'releases', id);
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, 'app.mjs'), 'x'.repeat(100));
      if (id === 'd') await writeFile(path.join(dir, 'compose.yml'), 'services: {}\n');
      await utimes(dir, at(i + 1), at(i + 1));
    }
    await symlink('releases/a', path.join(root, 'current'));
    await symlink('releases/b', path.join(root, 'previous'));
    const listed = await releaseInventory(root, at(10).getTime());
    expect(listed.releases.map((r) => r.id)).toEqual(['d', 'c', 'b', 'a']);
    expect(listed.releases[0]?.bytes).toBe(100 + 'services: {}\n'.length);
    expect(listed.releases[0]?.composeSha256).toBe(
      createHash('sha256').update('services: {}\n').digest('hex'),
    );
    expect(listed.releases[1]?.composeSha256).toBeNull();
    expect(listed.releases[0]?.ageMs).toBe(6 * 86_400_000);
    const r = await pruneReleases(root, 1, at(10).getTime());
    expect(r.removed).toEqual(['c']);
    expect((await readdir(path.join(root, 'releases'))).sort()).toEqual(['a', 'b', 'd']);
  });
});
