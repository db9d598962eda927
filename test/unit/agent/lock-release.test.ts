import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { systemClock } from '../../../src/clock.js';
import type { AgentLine } from '../../../src/protocol/lines.js';
import { serveAgentOp } from '../../../src/host/agent/server.js';
import { lockHolderPath } from '../../../src/host/layout.js';
import { acquireHostLock, readLockStatus } from '../../../src/host/lock.js';
import { processStartTime } from '../../../src/host/process-start.js';
import { hostFixture, type HostFixture } from '../../support/host-fixture.js';
import { firstLine, spawnFixture } from '../host/helpers.js';

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

async function release(host: HostFixture, force: boolean) {
  const lines: AgentLine[] = [];
  const io = {
    send: (l: AgentLine) => void lines.push(l),
    input: (async function* () {})(),
  };
  const code = await serveAgentOp(
    'lock-release',
    { force },
    {
      config: host.config,
      clock: systemClock,
      io,
      self: __filename,
      readStdin: () => Promise.resolve(''),
    },
  );
  return { code, result: lines.find((l) => l.type === 'result') };
}

describe('deploy lock release', () => {
  it('says so when nothing holds the lock', async () => {
    const host = await hostFixture();
    expect(await release(host, false)).toMatchObject({
      code: 0,
      result: { ok: true, data: { released: false, reason: 'not locked' } },
    });
  });

  it(
    'refuses to stop a live holder without --force, and frees the lock with it',
    { timeout: 60_000 },
    async () => {
      const host = await hostFixture();
      child = spawnFixture('lock-taker.ts', [host.config.host.lock, 'stuck rollout']);
      expect(await firstLine(child)).toMatchObject({ event: 'locked' });
      const refused = await release(host, false);
      expect(refused.code).toBe(3);
      expect(JSON.stringify(refused.result)).toContain('held by stuck rollout');
      const forced = await release(host, true);
      expect(forced).toMatchObject({ code: 0, result: { ok: true, data: { released: true } } });
      expect((await readLockStatus(host.config.host.lock)).locked).toBe(false);
    },
  );

  it(
    'with --force never signals a pid that is not the process that took the lock',
    { timeout: 30_000 },
    async () => {
      const host = await hostFixture();
      const lock = await acquireHostLock(host.config.host.lock, { what: 'deploy rollout' });
      try {
        // an unrelated process whose command line says "handoff" and "lock"
        child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'handoff-lock']);
        const pid = child.pid!;
        const started = processStartTime(pid);
        expect(started).toBeDefined();
        const holders = [
          { host: hostname() }, // no start time recorded
          { host: hostname(), started: `${Number(started) + 1}` }, // a reused pid
          { host: 'elsewhere', started }, // the same pid on another host
        ];
        for (const claim of holders) {
          const holder = { what: 'deploy rollout', pid, since: lock.holder.since, ...claim };
          await writeFile(lockHolderPath(host.config.host.lock), JSON.stringify(holder));
          const forced = await release(host, true);
          expect(forced).toMatchObject({ code: 3, result: { ok: false } });
          expect(process.kill(pid, 0)).toBe(true);
        }
        expect(child.exitCode).toBeNull();
      } finally {
        await lock.release();
      }
    },
  );

  it('records the holder’s host and start time when the lock is taken', async () => {
    const host = await hostFixture();
    const lock = await acquireHostLock(host.config.host.lock, { what: 'watchdog' });
    await lock.release();
    expect(lock.holder).toMatchObject({
      pid: process.pid,
      host: hostname(),
      started: processStartTime(process.pid),
    });
    expect(lock.holder.started).toMatch(/^\d+$/);
  });
});
