import { utimes } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { announceLockIntent, lockIntentPath, lockWanted } from '../../../src/host/lock-intent.js';
import { tempDir } from './helpers.js';

let state: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: state, cleanup } = await tempDir());
});
afterEach(() => cleanup());

describe('a deploy waiting for the lock', () => {
  it('is wanted for 90 s after it said so, then ignored', async () => {
    const now = Date.now();
    await announceLockIntent(state, 'deploy rollout', now);
    expect(await lockWanted(state, now + 1_000)).toBe(true);
    expect(await lockWanted(state, now + 91_000)).toBe(false);
  });

  it('ages from now when its mtime lies in the future (the clock stepped back a day)', async () => {
    const now = Date.now();
    await announceLockIntent(state, 'deploy rollout', now);
    const ahead = new Date(now + 24 * 3_600_000);
    await utimes(lockIntentPath(state), ahead, ahead);
    expect(await lockWanted(state, now)).toBe(true);
    expect(await lockWanted(state, now + 91_000)).toBe(false);
  });

  it('is not wanted when nobody said so', async () => {
    expect(await lockWanted(state, Date.now())).toBe(false);
  });
});
