import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { systemClock } from '../../../src/clock.js';
import type { AgentLine } from '../../../src/host/agent/protocol.js';
import { serveAgentOp } from '../../../src/host/agent/server.js';
import { readLockStatus } from '../../../src/host/lock.js';
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
});
