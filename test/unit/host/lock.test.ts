import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockHeldError } from '../../../src/errors.js';
import {
  acquireHostLock,
  HOST_LOCK_OPTIONS,
  readLockStatus,
  retriesFor,
  type HostLock,
} from '../../../src/host/lock.js';
import { eventually, tempDir } from './helpers.js';

let dir: string;
let lockPath: string;
let cleanup: () => Promise<void>;
const held: HostLock[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  lockPath = path.join(dir, 'lock', 'handoff', 'api');
});
afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release();
  await cleanup();
});

async function take(what: string, message?: string): Promise<HostLock> {
  const lock = await acquireHostLock(lockPath, { what, ...(message ? { message } : {}) });
  held.push(lock);
  return lock;
}

describe('the host lock', () => {
  it('is taken with stale 10 s and update 5 s by every taker', () => {
    expect(HOST_LOCK_OPTIONS).toEqual({ stale: 10_000, update: 5_000, realpath: true });
    expect(Object.isFrozen(HOST_LOCK_OPTIONS)).toBe(true);
  });

  it('creates the lock file and its directory when they are missing', async () => {
    await take('deploy rollout');
    expect((await stat(lockPath)).isFile()).toBe(true);
    expect((await stat(`${lockPath}.lock`)).isDirectory()).toBe(true);
  });

  it('records its holder beside the lock', async () => {
    const lock = await take('deploy rollout', 'release r42');
    const onDisk = JSON.parse(await readFile(`${lockPath}.holder.json`, 'utf8')) as unknown;
    expect(onDisk).toEqual(lock.holder);
    expect(lock.holder).toMatchObject({
      what: 'deploy rollout',
      pid: process.pid,
      message: 'release r42',
    });
    expect(Date.parse(lock.holder.since)).not.toBeNaN();
  });

  it('refuses a second taker with a LockHeldError that says who holds it and since when', async () => {
    const first = await take('deploy rollout', 'release r42');
    const refused = await acquireHostLock(lockPath, { what: 'watchdog' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LockHeldError);
    expect((refused as LockHeldError).holder).toEqual(first.holder);
    expect((refused as LockHeldError).message).toContain(
      `held by deploy rollout (pid ${process.pid}`,
    );
    expect((refused as LockHeldError).message).toContain(
      `since ${first.holder.since}: release r42`,
    );
    expect((refused as LockHeldError).exitCode).toBe(3);
  });

  it('lets the next taker in after release, and removes the holder file', async () => {
    const first = await take('deploy rollout');
    await first.release();
    await expect(stat(`${lockPath}.holder.json`)).rejects.toThrow(/ENOENT/);
    const second = await take('watchdog');
    expect(second.holder.what).toBe('watchdog');
  });

  it('can be released twice without harm', async () => {
    const lock = await take('deploy rollout');
    await lock.release();
    await expect(lock.release()).resolves.toBeUndefined();
  });

  it('waits for a holder that releases when the taker asks to retry', async () => {
    const first = await take('deploy rollout');
    const waiting = acquireHostLock(lockPath, { what: 'lock exec', retries: retriesFor(5_000) });
    await first.release();
    const second = await waiting;
    held.push(second);
    expect(second.holder.what).toBe('lock exec');
  });

  it('reports a held lock and its holder through readLockStatus', async () => {
    const lock = await take('deploy rollout', 'release r42');
    expect(await readLockStatus(lockPath)).toEqual({ locked: true, holder: lock.holder });
  });

  it('reports a released lock as free', async () => {
    await (await take('deploy rollout')).release();
    expect(await readLockStatus(lockPath)).toEqual({ locked: false });
  });

  it('reads the status of a lock that was never taken without creating anything', async () => {
    expect(await readLockStatus(lockPath)).toEqual({ locked: false });
    await expect(stat(path.dirname(lockPath))).rejects.toThrow(/ENOENT/);
  });

  it('aborts its signal instead of crashing when the lock is compromised', async () => {
    const lock = await take('deploy rollout');
    expect(lock.signal.aborted).toBe(false);
    // someone removed the lock behind our back: the next refresh (every 5 s) notices
    await rm(`${lockPath}.lock`, { recursive: true });
    await eventually(() => lock.signal.aborted, { within: 8_000 });
    expect((lock.signal.reason as Error).message).toMatch(/lost the host lock .*api/);
    await expect(lock.release()).resolves.toBeUndefined();
  });
});
