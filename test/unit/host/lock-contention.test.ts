import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockHeldError } from '../../../src/errors.js';
import { acquireHostLock } from '../../../src/host/lock.js';
import { eventually, exited, firstLine, spawnFixture, tempDir } from './helpers.js';

let dir: string;
let lockPath: string;
let cleanup: () => Promise<void>;
const children: ChildProcess[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  lockPath = path.join(dir, 'lock', 'api');
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGKILL');
    await exited(child);
  }
  await cleanup();
});

function taker(what: string): ChildProcess {
  const child = spawnFixture('lock-taker.ts', [lockPath, what]);
  children.push(child);
  return child;
}

describe('the host lock between processes', () => {
  it(
    'lets exactly one of two racing processes win, and the loser names the winner',
    { timeout: 30_000 },
    async () => {
      const [a, b] = [taker('deploy rollout'), taker('watchdog')];
      const lines = await Promise.all([firstLine(a), firstLine(b)]);
      const winners = lines.filter((l) => l.event === 'locked');
      const losers = lines.filter((l) => l.event === 'refused');
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      expect(losers[0]?.holder).toMatchObject({ pid: winners[0]?.pid });
    },
  );

  it('hands the lock over when the holder releases it', { timeout: 30_000 }, async () => {
    const first = taker('deploy rollout');
    expect(await firstLine(first)).toMatchObject({ event: 'locked' });
    first.stdin?.end();
    expect(await exited(first)).toBe(0);
    expect(await firstLine(taker('watchdog'))).toMatchObject({ event: 'locked' });
  });

  it('lets a new taker in once a SIGKILLed holder has gone stale, and not before', async () => {
    const holder = taker('deploy rollout');
    const line = await firstLine(holder);
    expect(line).toMatchObject({ event: 'locked' });
    holder.kill('SIGKILL');
    await exited(holder);
    const killedAt = Date.now();

    const refusedAtOnce = await acquireHostLock(lockPath, { what: 'watchdog' }).catch(
      (e: unknown) => e,
    );
    // the dead holder's file is left behind, but a dead local pid is never named as the holder
    expect(refusedAtOnce).toBeInstanceOf(LockHeldError);
    expect((refusedAtOnce as LockHeldError).holder).toBeUndefined();

    const lock = await eventually(
      () =>
        acquireHostLock(lockPath, { what: 'watchdog' }).catch((e: unknown) => {
          if (e instanceof LockHeldError) return undefined;
          throw e;
        }),
      { within: 15_000, every: 250 },
    );
    try {
      // the mtime was at most one update (5 s) old when the holder died; stale is 10 s
      expect(Date.now() - killedAt).toBeGreaterThan(4_000);
      expect(JSON.parse(await readFile(`${lockPath}.holder.json`, 'utf8'))).toMatchObject({
        what: 'watchdog',
        pid: process.pid,
      });
    } finally {
      await lock.release();
    }
  }, 30_000);
});
