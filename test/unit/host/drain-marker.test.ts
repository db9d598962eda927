import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isExpired,
  newDrainMarker,
  readDrainMarker,
  removeDrainMarker,
  writeDrainMarker,
} from '../../../src/host/drain-marker.js';
import { tempDir } from './helpers.js';

const t0 = Date.UTC(2026, 10, 30, 10, 0, 0);

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('the drain marker', () => {
  it('starts now and expires one lease later', () => {
    expect(newDrainMarker({ by: 'rollout r42', now: t0, lease: 300_000, release: 'r42' })).toEqual({
      by: 'rollout r42',
      since: '2026-11-30T10:00:00.000Z',
      until: '2026-11-30T10:05:00.000Z',
      release: 'r42',
    });
  });

  it('is written as the file draining in host.state and reads back', async () => {
    const marker = newDrainMarker({ by: 'deploy drain', now: t0, lease: 60_000 });
    await writeDrainMarker(dir, marker);
    expect(JSON.parse(await readFile(path.join(dir, 'draining'), 'utf8'))).toEqual(marker);
    expect(await readDrainMarker(dir)).toEqual({ value: marker, present: true });
  });

  it('creates host.state when it is missing (tmpfs after a reboot)', async () => {
    const state = path.join(dir, 'run', 'handoff', 'api');
    await writeDrainMarker(state, newDrainMarker({ by: 'x', now: t0, lease: 1 }));
    expect((await readDrainMarker(state)).present).toBe(true);
  });

  it('is not present when the file does not exist', async () => {
    expect(await readDrainMarker(dir)).toEqual({ value: undefined, present: false });
  });

  it('is still present when its content is unreadable, because the health endpoints only test for the file', async () => {
    await writeFile(path.join(dir, 'draining'), '');
    const read = await readDrainMarker(dir);
    expect(read.present).toBe(true);
    expect(read.value).toBeUndefined();
    expect(read.problem).toMatch(/draining is not valid JSON/);
  });

  it('is removed, and removing it again reports there was nothing', async () => {
    await writeDrainMarker(dir, newDrainMarker({ by: 'x', now: t0, lease: 1 }));
    expect(await removeDrainMarker(dir)).toBe(true);
    expect(await removeDrainMarker(dir)).toBe(false);
    expect((await readDrainMarker(dir)).present).toBe(false);
  });

  it('expires exactly at until, not a millisecond before', () => {
    const marker = newDrainMarker({ by: 'x', now: t0, lease: 60_000 });
    expect(isExpired(marker, t0 + 59_999)).toBe(false);
    expect(isExpired(marker, t0 + 60_000)).toBe(true);
  });
});
