import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { LEFTOVER_AGE_MS } from '../../../src/host/artifact.js';
import { prune } from '../../../src/host/agent/ops/releases.js';
import { acquireHostLock, readLockStatus, type HostLock } from '../../../src/host/lock.js';
import { hostFixture, type HostFixture } from '../../support/host-fixture.js';

let held: HostLock | undefined;
afterEach(async () => {
  await held?.release();
  held = undefined;
});

async function withReleases(ids: string[]): Promise<HostFixture> {
  const host = await hostFixture();
  for (const id of ids)
    await mkdir(path.join(host.config.host.root, 'releases', id), { recursive: true });
  return host;
}

const releasesOf = async (h: HostFixture) =>
  (await readdir(path.join(h.config.host.root, 'releases'))).sort();

describe('the agent prunes under the host lock', () => {
  it('refuses while another holds the lock, and removes nothing', async () => {
    const host = await withReleases(['r1', 'r2', 'r3']);
    const before = await releasesOf(host);
    held = await acquireHostLock(host.config.host.lock, { what: 'watchdog' });
    await expect(prune(host.config, systemClock, 1, 0)).rejects.toThrow(/held by watchdog/);
    expect(await releasesOf(host)).toEqual(before);
  });

  it('takes the lock, prunes, and leaves it free', async () => {
    const host = await withReleases(['r1', 'r2', 'r3', 'r4']);
    const removed = (await prune(host.config, systemClock, 1, 0)) as { removed: string[] };
    expect(removed.removed.length).toBeGreaterThan(0);
    expect((await releasesOf(host)).length).toBe(4 - removed.removed.length);
    expect(await readLockStatus(host.config.host.lock)).toMatchObject({ locked: false });
  });

  it('with nothing to remove, answers without the lock, even while another holds it', async () => {
    const host = await withReleases(['r1', 'r2']);
    held = await acquireHostLock(host.config.host.lock, { what: 'watchdog' });
    // a prune that took the lock would be refused here, as above
    expect(await prune(host.config, systemClock, 5, 0)).toEqual({
      removed: [],
      kept: expect.arrayContaining(['r1', 'r2']) as string[],
    });
    expect(await releasesOf(host)).toEqual(['r1', 'r2']);
  });

  it('takes the lock for a leftover alone (an upload a dropped connection left)', async () => {
    const host = await withReleases(['r1']);
    const upload = path.join(host.config.host.root, 'releases', '.upload-r2-0a1b2c3d4e5f.tgz');
    await writeFile(upload, 'partial');
    const old = new Date(Date.now() - LEFTOVER_AGE_MS - 60_000);
    await utimes(upload, old, old);
    held = await acquireHostLock(host.config.host.lock, { what: 'watchdog' });
    await expect(prune(host.config, systemClock, 5, 0)).rejects.toThrow(/held by watchdog/);
    await held.release();
    held = undefined;
    expect(await prune(host.config, systemClock, 5, 0)).toEqual({ removed: [], kept: ['r1'] });
    expect(await releasesOf(host)).toEqual(['r1']);
  });
});
