import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockHeldError, UsageError } from '../../../src/errors.js';
import { execUnderLock } from '../../../src/host/lock-exec.js';
import { acquireHostLock, readLockStatus } from '../../../src/host/lock.js';
import { eventually, tempDir } from './helpers.js';

let dir: string;
let lockPath: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  lockPath = path.join(dir, 'lock', 'api');
});
afterEach(() => cleanup());

describe('running a command under the host lock', () => {
  it('holds the lock while the command runs and passes its exit code on', async () => {
    const seen = path.join(dir, 'seen.json');
    const code = await execUnderLock(lockPath, [
      'sh',
      '-c',
      'cp "$0.holder.json" "$1"; exit 7',
      lockPath,
      seen,
    ]);
    expect(code).toBe(7);
    expect(JSON.parse(await readFile(seen, 'utf8'))).toMatchObject({
      what: 'lock exec',
      message: 'sh',
      pid: process.pid,
    });
    expect(await readLockStatus(lockPath)).toEqual({ locked: false });
  });

  it('names only the program in the holder message, never its arguments', async () => {
    const seen = path.join(dir, 'seen.json');
    await execUnderLock(lockPath, [
      'sh',
      '-c',
      'cp "$0.holder.json" "$1"',
      lockPath,
      seen,
      '--password=hunter2',
    ]);
    expect(await readFile(seen, 'utf8')).not.toContain('hunter2');
  });

  it('refuses without running the command while someone else holds the lock', async () => {
    const other = await acquireHostLock(lockPath, {
      what: 'deploy rollout',
      message: 'release r42',
    });
    try {
      const ran = path.join(dir, 'ran');
      const refused = await execUnderLock(lockPath, ['touch', ran]).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LockHeldError);
      expect((refused as LockHeldError).holder).toMatchObject({
        what: 'deploy rollout',
        message: 'release r42',
      });
      await expect(stat(ran)).rejects.toThrow(/ENOENT/);
    } finally {
      await other.release();
    }
  });

  it('reports a command ended by a signal as 128 + the signal number', async () => {
    expect(await execUnderLock(lockPath, ['sh', '-c', 'kill -TERM $$'])).toBe(143);
  });

  it('forwards an abort to the command as the named signal and keeps the lock until it exits', async () => {
    const started = path.join(dir, 'started');
    const controller = new AbortController();
    const script = `trap 'exit 5' HUP; touch "$0"; while :; do sleep 0.05; done`;
    const running = execUnderLock(lockPath, ['sh', '-c', script, started], {
      signal: controller.signal,
    });
    await eventually(() => stat(started).catch(() => undefined));
    expect((await readLockStatus(lockPath)).locked).toBe(true);
    controller.abort('SIGHUP');
    expect(await running).toBe(5);
    expect(await readLockStatus(lockPath)).toEqual({ locked: false });
  });

  it('says a program that does not exist was not found, and releases the lock', async () => {
    const failure = await execUnderLock(lockPath, ['no-such-program-here']).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(UsageError);
    expect((failure as Error).message).toBe(
      'cannot run no-such-program-here: not found (is it on PATH?)',
    );
    expect(await readLockStatus(lockPath)).toEqual({ locked: false });
  });
});
