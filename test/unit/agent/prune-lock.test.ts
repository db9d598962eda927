import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
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
});
