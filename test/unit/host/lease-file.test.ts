import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leaseAction, leasePath } from '../../../src/host/lease-file.js';
import type { LeaseRequest } from '../../../src/protocol/lease.js';
import { FakeClock } from '../../support/fake-clock.js';
import { tempDir } from './helpers.js';

const t0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const holder = { user: 'alice', host: 'laptop', pid: 42 };
const first: LeaseRequest = { id: 'one', holder, command: 'rollout', release: 'r7' };
const second: LeaseRequest = {
  id: 'two',
  holder: { ...holder, user: 'ci', ci: 'https://github.com/o/r/actions/runs/9' },
  command: 'rollout',
  release: 'r8',
};

let dir: string;
let cleanup: () => Promise<void>;
let clock: FakeClock;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  clock = new FakeClock(t0);
});
afterEach(() => cleanup());

describe("a host's piece of the fleet lease", () => {
  it('is taken when free, written with the host clock, and read back with its age', async () => {
    const taken = await leaseAction(dir, clock, 'take', first);
    expect(taken.ok).toBe(true);
    expect(JSON.parse(await readFile(leasePath(dir), 'utf8'))).toEqual({
      version: 1,
      id: 'one',
      holder,
      command: 'rollout',
      release: 'r7',
      started: '2026-12-01T10:00:00.000Z',
      heartbeat: '2026-12-01T10:00:00.000Z',
      ttlMs: 30_000,
    });
    clock.advance(2_000);
    expect(await leaseAction(dir, clock, 'read', undefined)).toMatchObject({
      ok: true,
      lease: { id: 'one' },
      ageMs: 2_000,
    });
  });

  it('refuses another taker while the heartbeat is live, naming the holder and its age', async () => {
    await leaseAction(dir, clock, 'take', first);
    clock.advance(29_000);
    expect(await leaseAction(dir, clock, 'take', second)).toMatchObject({
      ok: false,
      lease: { id: 'one', release: 'r7' },
      ageMs: 29_000,
    });
  });

  it('renewal keeps it live: the heartbeat moves, started stays', async () => {
    await leaseAction(dir, clock, 'take', first);
    clock.advance(20_000);
    expect((await leaseAction(dir, clock, 'renew', first)).ok).toBe(true);
    clock.advance(20_000);
    const refused = await leaseAction(dir, clock, 'take', second);
    expect(refused).toMatchObject({ ok: false, ageMs: 20_000 });
    expect(refused.lease?.started).toBe('2026-12-01T10:00:00.000Z');
  });

  it('an expired piece is taken over, and the answer says whose it was', async () => {
    await leaseAction(dir, clock, 'take', first);
    clock.advance(31_000);
    const taken = await leaseAction(dir, clock, 'take', second);
    expect(taken).toMatchObject({ ok: true, lease: { id: 'two' }, tookOver: { id: 'one' } });
    expect(taken.tookOver?.ageMs).toBe(31_000);
    // the old holder finds out at its next renewal, and never takes it back silently
    expect(await leaseAction(dir, clock, 'renew', first)).toMatchObject({
      ok: false,
      lease: { id: 'two' },
    });
  });

  it('a live piece is taken over only by a taker that names it as replaced (its holder proven gone)', async () => {
    await leaseAction(dir, clock, 'take', first);
    clock.advance(1_000);
    expect((await leaseAction(dir, clock, 'take', { ...second, replaces: ['other'] })).ok).toBe(
      false,
    );
    const taken = await leaseAction(dir, clock, 'take', { ...second, replaces: ['one'] });
    expect(taken).toMatchObject({ ok: true, lease: { id: 'two' }, tookOver: { id: 'one' } });
    // what it replaced is not written into the piece
    expect(JSON.parse(await readFile(leasePath(dir), 'utf8'))).not.toHaveProperty('replaces');
  });

  it('release removes only our own piece', async () => {
    await leaseAction(dir, clock, 'take', first);
    expect(await leaseAction(dir, clock, 'release', second)).toMatchObject({
      ok: true,
      lease: { id: 'one' },
    });
    expect((await leaseAction(dir, clock, 'read', undefined)).ok).toBe(true);
    await leaseAction(dir, clock, 'release', first);
    expect(await leaseAction(dir, clock, 'read', undefined)).toEqual({ ok: false });
  });

  it('two takers at once: exactly one wins', async () => {
    const answers = await Promise.all([
      leaseAction(dir, clock, 'take', first),
      leaseAction(dir, clock, 'take', second),
    ]);
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
  });

  it('two takers of an expired piece at once: exactly one takes it over', async () => {
    await leaseAction(dir, clock, 'take', { ...first, id: 'old' });
    clock.advance(60_000);
    const answers = await Promise.all([
      leaseAction(dir, clock, 'take', first),
      leaseAction(dir, clock, 'take', second),
    ]);
    expect(answers.filter((a) => a.ok)).toHaveLength(1);
    expect(answers.filter((a) => a.tookOver)).toHaveLength(1);
  });

  it('a garbage file is refused (exit 3) and never taken over', async () => {
    await writeFile(leasePath(dir), 'not json{');
    const taking = leaseAction(dir, clock, 'take', first);
    await expect(taking).rejects.toMatchObject({ exitCode: 3 });
    await expect(taking).rejects.toThrow(
      /lease\.json is not a lease .*remove it once no deploy runs/,
    );
    expect(await readFile(leasePath(dir), 'utf8')).toBe('not json{');
  });

  it('a file from a newer handoff is refused, saying so', async () => {
    await writeFile(leasePath(dir), JSON.stringify({ version: 2, anything: true }));
    const reading = leaseAction(dir, clock, 'read', undefined);
    await expect(reading).rejects.toMatchObject({ exitCode: 3 });
    await expect(reading).rejects.toThrow('written by a newer handoff (lease version 2)');
  });

  it("a heartbeat ahead of the host's clock is refused, never taken over", async () => {
    await leaseAction(dir, new FakeClock(t0 + 120_000), 'take', first);
    const taking = leaseAction(dir, clock, 'take', second);
    await expect(taking).rejects.toMatchObject({ exitCode: 3 });
    await expect(taking).rejects.toThrow("120s ahead of this host's clock");
    expect((await leaseAction(dir, clock, 'read', undefined)).lease?.id).toBe('one');
  });
});

describe('a piece of an older handoff (no process in its holder)', () => {
  it('is read, and one with a process is read with it', async () => {
    await writeFile(
      leasePath(dir),
      JSON.stringify({
        version: 1,
        id: 'old',
        holder,
        command: 'rollout',
        started: '2026-12-01T10:00:00.000Z',
        heartbeat: '2026-12-01T10:00:00.000Z',
        ttlMs: 30_000,
      }),
    );
    expect(await leaseAction(dir, clock, 'read', undefined)).toMatchObject({
      ok: true,
      lease: { id: 'old', holder },
    });
    const process = { boot: 'b', pidns: 'pid:[1]', start: '9' };
    await leaseAction(dir, clock, 'take', {
      ...second,
      holder: { ...holder, process },
      replaces: ['old'],
    });
    expect(await leaseAction(dir, clock, 'read', undefined)).toMatchObject({
      lease: { id: 'two', holder: { process } },
    });
  });
});
