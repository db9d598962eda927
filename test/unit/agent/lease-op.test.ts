import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { auditLogPath } from '../../../src/host/layout.js';
import type { AgentIO } from '../../../src/host/agent/io.js';
import { serveFlags } from '../../../src/host/agent/server.js';
import type { FlagArgs } from '../../../src/protocol/args.js';
import type { AgentLine } from '../../../src/protocol/lines.js';
import { hostFixture, type HostFixture } from '../../support/host-fixture.js';

let host: HostFixture | undefined;
afterEach(() => {
  host = undefined;
});

/** `deploy host lease …` as argv gives it */
async function lease(h: HostFixture, flags: FlagArgs) {
  const lines: AgentLine[] = [];
  const io: AgentIO = {
    send: (l) => void lines.push(l),
    input: (async function* () {})(),
  };
  const code = await serveFlags('lease', flags, {
    loadConfig: () => Promise.resolve(h.config),
    clock: systemClock,
    io,
    self: __filename,
    readStdin: () => Promise.resolve(''),
  });
  return { code, result: lines.find((l) => l.type === 'result') };
}

const request = JSON.stringify({
  id: 'job-1',
  holder: { user: 'alice', host: 'laptop', pid: 42 },
  command: 'rollout',
  release: 'r2',
});

describe('deploy host lease', () => {
  it('takes, reads and releases this host’s piece from argv', async () => {
    host = await hostFixture();
    expect(await lease(host, { action: 'take', lease: request })).toMatchObject({
      code: 0,
      result: { ok: true, data: { ok: true, lease: { id: 'job-1', release: 'r2', version: 1 } } },
    });
    expect(await lease(host, { action: 'read' })).toMatchObject({
      code: 0,
      result: { data: { ok: true, lease: { id: 'job-1' } } },
    });
    await lease(host, { action: 'release', lease: request });
    expect(await lease(host, { action: 'read' })).toMatchObject({
      result: { data: { ok: false } },
    });
  });

  it('keeps a takeover in the host’s audit.jsonl: `deploy lease break` names who broke whose piece', async () => {
    host = await hostFixture();
    await lease(host, { action: 'take', lease: request });
    const breaker = JSON.stringify({
      id: 'op-1',
      holder: { user: 'bob', host: 'ops', pid: 7 },
      command: 'lease break',
      replaces: ['job-1'],
    });
    expect(await lease(host, { action: 'take', lease: breaker })).toMatchObject({
      result: { data: { ok: true, tookOver: { id: 'job-1' } } },
    });
    const lines = (await readFile(auditLogPath(host.config.host.root), 'utf8')).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      expect.objectContaining({
        step: 'lease break',
        release: 'r2',
        result: 'ok',
        who: 'bob@ops',
        detail: expect.stringMatching(
          /^deploy lease break by bob@ops pid 7 took the fleet lease's piece of deploy rollout r2 by alice@laptop pid 42, heartbeat \d+s old$/,
        ) as unknown,
      }),
    ]);
  });

  it('refuses an unknown action or a request that is not one, exit 2', async () => {
    host = await hostFixture();
    expect(await lease(host, { action: 'steal' })).toMatchObject({
      code: 2,
      result: { ok: false, error: { message: '--action "steal": use take, renew, release, read' } },
    });
    expect(await lease(host, { action: 'take', lease: '{"id":1}' })).toMatchObject({
      code: 2,
      result: { ok: false },
    });
  });
});

describe('which process holds the piece', () => {
  const holder = {
    user: 'alice',
    host: 'laptop',
    pid: 42,
    process: { boot: 'b00t', pidns: 'pid:[4026531836]', start: '123' },
  };
  const take = (h: unknown) =>
    JSON.stringify({ id: 'job-1', holder: h, command: 'rollout', release: 'r2' });

  it('is kept in the piece as the deployer said it (boot id, PID namespace, start time), so a taker can prove it gone', async () => {
    host = await hostFixture();
    await lease(host, { action: 'take', lease: take(holder) });
    expect(await lease(host, { action: 'read' })).toMatchObject({
      result: { data: { ok: true, lease: { holder } } },
    });
  });

  it('a process that is not one is refused, exit 2', async () => {
    host = await hostFixture();
    const bad = { ...holder, process: { boot: 'b00t', pidns: 7 } };
    expect(await lease(host, { action: 'take', lease: take(bad) })).toMatchObject({ code: 2 });
  });
});
