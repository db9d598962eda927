import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import type { AgentOp } from '../../../src/protocol/ops.js';
import { serveAgentOp, serveFlags, type AgentArgs } from '../../../src/host/agent/server.js';
import type { FlagArgs } from '../../../src/protocol/args.js';
import type { VerifyReport } from '../../../src/protocol/results.js';
import { encodePublish, releaseFile } from '../../../src/host/release-files.js';
import { acquireHostLock, readLockStatus } from '../../../src/host/lock.js';
import { hostFixture, type HostFixture } from '../../support/host-fixture.js';
import { memoryIO, startSession } from '../../support/memory-io.js';

let host: HostFixture | undefined;
afterEach(async () => {
  if (host) await call(host, 'stop');
  host = undefined;
});

async function call(h: HostFixture, op: AgentOp, args: AgentArgs = {}, stdin = '') {
  const m = memoryIO();
  const code = await serveAgentOp(op, args, {
    config: h.config,
    clock: systemClock,
    io: m.io,
    self: __filename,
    readStdin: () => Promise.resolve(stdin),
  });
  const result = m.lines.find((l) => l.type === 'result');
  return { code, result, data: result?.type === 'result' && result.ok ? result.data : undefined };
}

/** `deploy host <op>` as argv gives it: flags as strings, the config read only when asked */
async function argv(h: HostFixture, op: string, flags: FlagArgs) {
  const m = memoryIO();
  let configRead = false;
  const code = await serveFlags(op, flags, {
    loadConfig: () => ((configRead = true), Promise.resolve(h.config)),
    clock: systemClock,
    io: m.io,
    self: __filename,
    readStdin: () => Promise.resolve(''),
  });
  return { code, result: m.lines.find((l) => l.type === 'result'), configRead };
}

describe('the agent on a host', () => {
  it('says hello with its version, protocol and checksum', async () => {
    host = await hostFixture();
    const r = await call(host, 'hello');
    expect(r.code).toBe(0);
    expect(r.data).toMatchObject({ protocol: 1, version: '0.1.0' });
    expect((r.data as { sha256: string }).sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('deploys a release: publish, switch, start, verify, and reports it in status', async () => {
    host = await hostFixture();
    expect((await call(host, 'publish', { release: 'r1' })).code).toBe(0);
    expect((await call(host, 'switch', { release: 'r1' })).data).toEqual({
      previous: null,
      current: 'r1',
    });
    expect((await call(host, 'start')).code).toBe(0);
    const verify = await call(host, 'verify', { successes: 2, timeoutMs: 10_000 });
    expect(verify.data).toMatchObject({
      ok: true,
      services: [{ name: 'app', ok: true, passes: 2 }],
    });
    const status = await call(host, 'status');
    expect(status.data).toMatchObject({
      release: 'r1',
      releases: ['r1'],
      draining: null,
      lock: { locked: false },
    });
  });

  it('counts a draining 503 as answering only when told the host is drained', async () => {
    host = await hostFixture();
    await call(host, 'publish', { release: 'r1' });
    await call(host, 'switch', { release: 'r1' });
    await call(host, 'start');
    await call(host, 'drain', { by: 'test', leaseMs: 60_000, release: 'r1' });
    const drained = (
      await call(host, 'verify', { successes: 1, timeoutMs: 5_000, allowDraining: true })
    ).data as VerifyReport;
    expect(drained.services[0]).toMatchObject({ ok: true, draining: true });
    const strict = await call(host, 'verify', { successes: 1, timeoutMs: 1_000 });
    expect(strict.code).toBe(0);
    expect((strict.data as VerifyReport).ok).toBe(false);
    expect((await call(host, 'status')).data).toMatchObject({
      draining: { by: 'test', release: 'r1' },
    });
    await call(host, 'undrain');
    expect((await call(host, 'status')).data).toMatchObject({ draining: null });
  });

  it('publishes the files sent with a release byte for byte, with their sha256', async () => {
    host = await hostFixture();
    const compose = releaseFile('compose.yml', 'services:\n  app: {image: "app:r1"} # é\n');
    const r = await call(host, 'publish', { release: 'r1' }, encodePublish([compose]));
    expect(r.data).toMatchObject({ release: 'r1', sha256: { 'compose.yml': compose.sha256 } });
    const written = await readFile(path.join(host.config.host.root, 'releases/r1/compose.yml'));
    expect(written.equals(Buffer.from(compose.content))).toBe(true);
  });

  it("writes the operator's variables into .env with mode 0600 and never into the answer", async () => {
    host = await hostFixture();
    const env = { MODE: 'prod', DB_PASSWORD: 'pw-$ecret "x"' };
    const r = await call(host, 'publish', { release: 'r1' }, encodePublish([], env));
    expect(JSON.stringify(r.result)).not.toContain('pw-$ecret');
    const file = path.join(host.config.host.root, 'releases/r1/.env');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^RELEASE=r1\n/);
    expect(text).toContain(`MODE='prod'\nDB_PASSWORD='pw-$ecret "x"'\n`);
  });

  it('refuses a file whose bytes do not hash to what was sent, writing nothing', async () => {
    host = await hostFixture();
    const bent = { ...releaseFile('compose.yml', 'services: {}\n'), content: 'services: {x}\n' };
    const r = await call(host, 'publish', { release: 'r1' }, encodePublish([bent]));
    expect(r.code).toBe(1);
    const error = r.result?.type === 'result' && !r.result.ok ? r.result.error.message : '';
    expect(error).toMatch(
      /^publish: compose.yml arrived with sha256 [0-9a-f]{64}, sent as [0-9a-f]{64}; nothing was written$/,
    );
    await expect(readFile(path.join(host.config.host.root, 'releases/r1/.env'))).rejects.toThrow(
      /ENOENT/,
    );
  });

  it('never puts a response body in the verify report', async () => {
    host = await hostFixture();
    await call(host, 'publish', { release: 'r1' }, encodePublish([releaseFile('BAD', '1')]));
    await call(host, 'switch', { release: 'r1' });
    await call(host, 'start');
    const r = await call(host, 'verify', { successes: 1, timeoutMs: 2_000 });
    expect((r.data as VerifyReport).services[0]).toMatchObject({ ok: false, code: 'status-500' });
    expect(JSON.stringify(r.result)).not.toContain('hunter2');
  });

  it('holds the lock until told to release it, appending audit lines meanwhile', async () => {
    host = await hostFixture();
    const m = memoryIO();
    const holding = serveAgentOp(
      'lock-hold',
      { what: 'rollout', message: 'release r2' },
      {
        config: host.config,
        clock: systemClock,
        io: m.io,
        self: __filename,
        readStdin: () => Promise.resolve(''),
      },
    );
    await expect.poll(() => m.lines.some((l) => l.type === 'locked')).toBe(true);
    await expect(acquireHostLock(host.config.host.lock, { what: 'watchdog' })).rejects.toThrow(
      /held by rollout/,
    );
    m.write(JSON.stringify({ audit: { step: 'drain', release: 'r2' } }));
    m.write('release');
    expect(await holding).toBe(0);
    const audit = await readFile(path.join(host.config.host.root, 'audit.jsonl'), 'utf8');
    expect(JSON.parse(audit.trim())).toEqual({ step: 'drain', release: 'r2' });
    const again = await acquireHostLock(host.config.host.lock, { what: 'watchdog' });
    await again.release();
  });

  it('releases the lock when stdin closes, as when the SSH session drops', async () => {
    host = await hostFixture();
    const { m, holding } = startSession(host.config, { what: 'rollout' });
    await expect.poll(() => m.lines.some((l) => l.type === 'locked')).toBe(true);
    m.close();
    expect(await holding).toBe(0);
    expect((await call(host, 'status')).data).toMatchObject({ lock: { locked: false } });
  });

  it('refuses a second holder with exit 3 and names the first', async () => {
    host = await hostFixture();
    const lock = await acquireHostLock(host.config.host.lock, {
      what: 'deploy rollout',
      message: 'release r9',
    });
    try {
      const r = await call(host, 'lock-hold', { what: 'rollout' });
      expect(r.code).toBe(3);
      expect(r.result).toMatchObject({ ok: false, error: { code: 'lock-held' } });
      expect(JSON.stringify(r.result)).toContain('held by deploy rollout');
    } finally {
      await lock.release();
    }
  });

  it('refuses --expect-agent with another checksum, exit 3, before doing anything', async () => {
    host = await hostFixture();
    const r = await argv(host, 'drain', {
      by: 'ci',
      leaseMs: '60000',
      expectAgent: 'f'.repeat(64),
    });
    expect(r.code).toBe(3);
    expect(r.configRead).toBe(false);
    expect(r.result).toMatchObject({ ok: false, error: { code: 'agent-version', exit: 3 } });
    expect(JSON.stringify(r.result)).toMatch(
      /agent 0\.1\.0 \([0-9a-f]{12}\) differs from this deploy's/,
    );
    expect((await call(host, 'status')).data).toMatchObject({ draining: null });
  });

  it('runs an operation whose --expect-agent is its own checksum', async () => {
    host = await hostFixture();
    const me = (await call(host, 'hello')).data as { sha256: string };
    const r = await argv(host, 'drain', { by: 'ci', leaseMs: '60000', expectAgent: me.sha256 });
    expect(r.code).toBe(0);
    expect((await call(host, 'status')).data).toMatchObject({ draining: { by: 'ci' } });
  });

  it('answers a missing flag with a usage error result, exit 2', async () => {
    host = await hostFixture();
    const r = await call(host, 'switch');
    expect(r).toMatchObject({
      code: 2,
      result: { ok: false, error: { message: 'missing --release' } },
    });
  });

  it('refuses a release id that names a path outside host.root, exit 2, writing nothing', async () => {
    host = await hostFixture();
    const root = host.config.host.root;
    for (const release of ['../../escaped', '..', 'a/b', '.hidden']) {
      for (const op of ['publish', 'switch', 'drain'] as const) {
        const r = await call(host, op, { release, by: 'test', leaseMs: 60_000 });
        expect(r).toMatchObject({ code: 2, result: { ok: false } });
      }
    }
    const escaped = path.resolve(root, 'releases', '../../escaped');
    await expect(readFile(path.join(escaped, '.env'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(await readdir(path.dirname(escaped))).not.toContain('escaped');
  });
});

describe('a lock session', () => {
  it('runs operations sent as call lines under the lock, answering reply lines', async () => {
    host = await hostFixture();
    await call(host, 'publish', { release: 'r1' });
    const { m, holding } = startSession(host.config, { what: 'rollout' });
    await expect.poll(() => m.lines.some((l) => l.type === 'locked')).toBe(true);
    m.write(JSON.stringify({ call: { id: 1, op: 'switch', args: { release: 'r1' } } }));
    m.write(JSON.stringify({ call: { id: 2, op: 'switch', args: {} } }));
    m.write(JSON.stringify({ call: { id: 3, op: 'lock-release', args: {} } }));
    await expect.poll(() => m.lines.filter((l) => l.type === 'reply').length).toBe(3);
    const replies = m.lines.filter((l) => l.type === 'reply');
    expect(replies[0]).toEqual({
      type: 'reply',
      id: 1,
      ok: true,
      data: { previous: null, current: 'r1' },
    });
    expect(replies[1]).toMatchObject({
      id: 2,
      ok: false,
      error: { message: 'missing --release', exit: 2 },
    });
    expect(replies[2]).toMatchObject({
      id: 3,
      ok: false,
      error: { message: 'lock-release cannot run inside a lock session' },
    });
    m.close();
    expect(await holding).toBe(0);
  });

  it('answers other calls while a verify runs, and cuts the verify short when it ends', async () => {
    host = await hostFixture();
    const { m, holding } = startSession(host.config, { what: 'rollout' });
    await expect.poll(() => m.lines.some((l) => l.type === 'locked')).toBe(true);
    // nothing runs on this host: the verify keeps failing until its timeout, minutes away
    m.write(
      JSON.stringify({
        call: { id: 1, op: 'verify', args: { successes: 1, timeoutMs: 600_000 } },
      }),
    );
    m.write(JSON.stringify({ call: { id: 2, op: 'status', args: {} } }));
    await expect.poll(() => m.lines.some((l) => l.type === 'reply' && l.id === 2)).toBe(true);
    expect(m.lines.some((l) => l.type === 'reply' && l.id === 1)).toBe(false);
    m.close();
    expect(await holding).toBe(0);
    expect(m.lines.find((l) => l.type === 'reply' && l.id === 1)).toMatchObject({ ok: false });
    expect((await readLockStatus(host.config.host.lock)).locked).toBe(false);
  });

  it('with --defer starts before the lock and takes it on a lock call', async () => {
    host = await hostFixture();
    const { m, holding } = startSession(host.config, { what: 'rollout', defer: true });
    await expect.poll(() => m.lines.some((l) => l.type === 'ready')).toBe(true);
    expect((await readLockStatus(host.config.host.lock)).locked).toBe(false);
    // publishing does not touch what runs: it needs no lock (prepare runs it ahead)
    m.write(JSON.stringify({ call: { id: 1, op: 'publish', args: { release: 'r1' } } }));
    m.write(JSON.stringify({ call: { id: 2, op: 'switch', args: { release: 'r1' } } }));
    m.write(
      JSON.stringify({ call: { id: 3, op: 'lock', args: { what: 'rollout', message: 'r1' } } }),
    );
    m.write(JSON.stringify({ call: { id: 4, op: 'switch', args: { release: 'r1' } } }));
    await expect.poll(() => m.lines.filter((l) => l.type === 'reply').length).toBe(4);
    const replies = m.lines.filter((l) => l.type === 'reply');
    expect(replies[0]).toMatchObject({ id: 1, ok: true, data: { release: 'r1' } });
    expect(replies[1]).toMatchObject({
      id: 2,
      ok: false,
      error: { message: 'switch needs the host lock: send a lock call first' },
    });
    expect(replies[2]).toMatchObject({ id: 3, ok: true });
    expect(replies[3]).toMatchObject({ id: 4, ok: true, data: { current: 'r1' } });
    expect((await readLockStatus(host.config.host.lock)).locked).toBe(true);
    m.close();
    expect(await holding).toBe(0);
    expect((await readLockStatus(host.config.host.lock)).locked).toBe(false);
  });

  it('on an unlock call releases the lock and goes on answering, and may take it again', async () => {
    host = await hostFixture();
    const { m, holding } = startSession(host.config, { what: 'rollout', defer: true });
    await expect.poll(() => m.lines.some((l) => l.type === 'ready')).toBe(true);
    const replies = () => m.lines.filter((l) => l.type === 'reply');
    m.write(JSON.stringify({ call: { id: 1, op: 'lock', args: { what: 'rollout' } } }));
    m.write(JSON.stringify({ call: { id: 2, op: 'unlock', args: {} } }));
    await expect.poll(() => replies().length).toBe(2);
    expect(replies()[1]).toMatchObject({ id: 2, ok: true, data: { released: true } });
    // the watchdog (or anyone) may take it now, while the session stays open
    const other = await acquireHostLock(host.config.host.lock, {
      what: 'watchdog',
      clock: systemClock,
    });
    await other.release();
    m.write(JSON.stringify({ call: { id: 3, op: 'status', args: {} } }));
    m.write(JSON.stringify({ call: { id: 4, op: 'switch', args: { release: 'r1' } } }));
    m.write(JSON.stringify({ call: { id: 5, op: 'lock', args: { what: 'rollout' } } }));
    m.write(JSON.stringify({ call: { id: 6, op: 'unlock', args: {} } }));
    m.write(JSON.stringify({ call: { id: 7, op: 'unlock', args: {} } }));
    await expect.poll(() => replies().length).toBe(7);
    // a status is a read: it runs beside the others, its reply may come in any order
    const byId = replies().sort((a, b) => (a as { id: number }).id - (b as { id: number }).id);
    expect(byId.slice(2)).toMatchObject([
      { id: 3, ok: true },
      {
        id: 4,
        ok: false,
        error: { message: 'switch needs the host lock: send a lock call first' },
      },
      { id: 5, ok: true },
      { id: 6, ok: true, data: { released: true } },
      { id: 7, ok: true, data: { released: false } },
    ]);
    expect((await readLockStatus(host.config.host.lock)).locked).toBe(false);
    m.close();
    expect(await holding).toBe(0);
  });
});

describe('deploy host argv', () => {
  it('answers an operation the table does not hold as a bad request, exit 2', async () => {
    host = await hostFixture();
    for (const op of ['audit', 'lock', 'toString']) {
      const r = await argv(host, op, {});
      expect(r).toMatchObject({
        code: 2,
        result: { ok: false, error: { code: 'bad-request', message: `unknown operation ${op}` } },
        configRead: false,
      });
    }
  });

  it('refuses a flag the operation does not take, reading no config', async () => {
    host = await hostFixture();
    const r = await argv(host, 'drain', { by: 'ci', leaseMs: '60000', force: true });
    expect(r).toMatchObject({
      code: 2,
      result: { ok: false, error: { code: 'bad-request', message: 'drain does not take --force' } },
      configRead: false,
    });
    expect((await call(host, 'status')).data).toMatchObject({ draining: null });
  });

  it('reads each flag by its kind: numbers, switches, release ids', async () => {
    host = await hostFixture();
    expect(await argv(host, 'verify', { successes: 'two' })).toMatchObject({
      code: 2,
      result: { error: { message: '--successes "two": expected a whole number up to 1000000' } },
    });
    expect(await argv(host, 'drain', { by: 'ci', leaseMs: '60000', release: '..' })).toMatchObject({
      code: 2,
      result: { ok: false },
    });
    const r = await argv(host, 'drain', { by: 'ci', leaseMs: '60000', release: 'r2' });
    expect(r.code).toBe(0);
    expect((await call(host, 'status')).data).toMatchObject({
      draining: { by: 'ci', release: 'r2' },
    });
  });

  it('answers a config it cannot read as bad-config, exit 2', async () => {
    host = await hostFixture();
    const m = memoryIO();
    const code = await serveFlags(
      'status',
      {},
      {
        loadConfig: () => Promise.reject(new Error('deploy.yml: no such file')),
        clock: systemClock,
        io: m.io,
        self: __filename,
        readStdin: () => Promise.resolve(''),
      },
    );
    expect(code).toBe(2);
    expect(m.lines).toEqual([
      {
        type: 'result',
        ok: false,
        error: { code: 'bad-config', message: 'deploy.yml: no such file', exit: 2 },
      },
    ]);
  });
});

describe('a call line', () => {
  it('has its arguments checked against the table like flags are', async () => {
    host = await hostFixture();
    const { m, holding } = startSession(host.config, { what: 'rollout' });
    await expect.poll(() => m.lines.some((l) => l.type === 'locked')).toBe(true);
    m.write(JSON.stringify({ call: { id: 1, op: 'drain', args: { by: 'ci', leaseMs: '5' } } }));
    m.write(JSON.stringify({ call: { id: 2, op: 'switch', args: { release: '../x' } } }));
    await expect.poll(() => m.lines.filter((l) => l.type === 'reply').length).toBe(2);
    const replies = m.lines.filter((l) => l.type === 'reply');
    expect(replies[0]).toMatchObject({
      ok: false,
      error: { message: '--lease-ms "5": expected a number', exit: 2 },
    });
    expect(replies[1]).toMatchObject({ ok: false, error: { exit: 2 } });
    m.close();
    expect(await holding).toBe(0);
    expect((await call(host, 'status')).data).toMatchObject({ draining: null });
  });
});
