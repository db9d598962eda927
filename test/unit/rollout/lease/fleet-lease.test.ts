import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../../src/clock.js';
import { MemoryLog } from '../../../../src/log.js';
import type { LeaseRecord, LeaseRequest } from '../../../../src/protocol/lease.js';
import { refusal, takeLease } from '../../../../src/rollout/lease/fleet-lease.js';
import type {
  LeaseRenew,
  LeaseStore,
  LeaseTake,
  LeaseView,
} from '../../../../src/rollout/lease/store.js';
import { request } from './lease-hosts.js';

/** A clock whose sleeps wait until the test moves time past them. */
class ManualClock implements Clock {
  private t = Date.UTC(2026, 11, 1);
  private timers: { at: number; resolve: () => void }[] = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const timer = { at: this.t + ms, resolve };
      this.timers.push(timer);
      signal?.addEventListener('abort', () => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(signal.reason as Error);
      });
    });
  }
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await new Promise((r) => setImmediate(r));
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.t = next.at;
      this.timers = this.timers.filter((x) => x !== next);
      next.resolve();
    }
    this.t = end;
    await new Promise((r) => setImmediate(r));
  }
}

function record(r: LeaseRequest): LeaseRecord {
  return {
    ...r,
    version: 1,
    started: '2026-12-01T00:00:00.000Z',
    heartbeat: '2026-12-01T00:00:00.000Z',
    ttlMs: 30_000,
  };
}

/** One piece (web-1), answered from a script. */
class ScriptedStore implements LeaseStore {
  readonly calls: string[] = [];
  holder: LeaseRequest | undefined;
  renewAnswer: LeaseRenew = { ok: true, unreachable: [] };
  /** how long reaching the store takes, on the test's clock */
  connectMs = 0;
  clock: ManualClock | undefined;
  connects = 0;
  async connect(): Promise<void> {
    this.connects++;
    if (this.connectMs > 0) await this.clock?.sleep(this.connectMs);
  }
  take(r: LeaseRequest): Promise<LeaseTake> {
    this.calls.push(`take ${r.id}`);
    if (this.holder && this.holder.id !== r.id && !r.replaces?.includes(this.holder.id))
      return Promise.resolve({
        ok: false,
        holder: { where: 'web-1', lease: record(this.holder), ageMs: 3_000 },
      });
    this.holder = r;
    return Promise.resolve({ ok: true, tookOver: [] });
  }
  renew(r: LeaseRequest): Promise<LeaseRenew> {
    this.calls.push(`renew ${r.id}`);
    return Promise.resolve(this.renewAnswer);
  }
  release(r: LeaseRequest): Promise<void> {
    this.calls.push(`release ${r.id}`);
    if (this.holder?.id === r.id) this.holder = undefined;
    return Promise.resolve();
  }
  read(): Promise<readonly LeaseView[]> {
    return Promise.resolve([]);
  }
  break(): Promise<readonly LeaseView[]> {
    this.holder = undefined;
    return Promise.resolve([]);
  }
}

const other = {
  ...request('first', 'r7'),
  holder: { user: 'ci', host: 'runner', pid: 7, ci: 'https://github.com/o/r/actions/runs/9' },
};

function setup() {
  const store = new ScriptedStore();
  const clock = new ManualClock();
  store.clock = clock;
  const log = new MemoryLog();
  const deps = { store, clock, log, signal: new AbortController().signal };
  return { store, clock, log, deps };
}

describe('taking the fleet lease', () => {
  it('a second deployer is refused by default: one line naming holder, command, release, heartbeat age', async () => {
    const { store, deps } = setup();
    store.holder = other;
    await expect(takeLease(deps, request('me', 'r8'))).rejects.toMatchObject({
      exitCode: 3,
      message:
        'the fleet lease is held (on web-1) by deploy rollout r7 by ci@runner pid 7 (https://github.com/o/r/actions/runs/9), heartbeat 3.0s ago; wait for it, or queue with --wait-lease DURATION',
    });
    expect(store.calls).toEqual(['take me']);
  });

  it('reaches the store once before the first take, and says how long of the take that was', async () => {
    const { store, clock, log, deps } = setup();
    store.connectMs = 300;
    const taking = takeLease(deps, request('me', 'r8'));
    await clock.advance(300);
    const held = await taking;
    expect(store.connects).toBe(1);
    expect(store.calls).toEqual(['take me']);
    expect(log.events.find((e) => e.event === 'lease.taken')?.fields).toMatchObject({
      waited_ms: 300,
      connect_ms: 300,
    });
    await held.release();
  });

  it('with --wait-lease it queues, says so, and runs once the holder is done', async () => {
    const { store, clock, log, deps } = setup();
    store.holder = other;
    const taking = takeLease(deps, request('me', 'r8'), 60_000);
    await clock.advance(6_000);
    store.holder = undefined;
    await clock.advance(2_000);
    const held = await taking;
    expect(held.waited).toBe(true);
    expect(held.behind.map((b) => b.lease.id)).toEqual(['first']);
    const events = log.events.map((e) => e.event);
    expect(events.filter((e) => e === 'lease.wait')).toHaveLength(1);
    expect(events.at(-1)).toBe('lease.taken');
    expect(log.events.at(-1)?.message).toBe('took the fleet lease after waiting 8.0s');
    await held.release();
  });

  it('takes over at once a holder proven gone (a process of this machine and PID namespace that no longer exists), saying so', async () => {
    const { store, log, deps } = setup();
    store.holder = other;
    const gone: string[] = [];
    const held = await takeLease(
      {
        ...deps,
        holderGone: (h) => {
          gone.push(`${h.host}:${h.pid}`);
          return { gone: true, why: 'that process is gone (pid 7 does not exist)' };
        },
      },
      request('me', 'r8'),
    );
    expect(gone).toEqual(['runner:7']);
    expect(store.calls).toEqual(['take me', 'take me']);
    expect(store.holder?.id).toBe('me');
    const takeover = log.events.find((e) => e.event === 'lease.takeover');
    expect(takeover?.message).toMatch(
      /^taking over the fleet lease of deploy rollout r7 by ci@runner pid 7 .*: that process is gone \(pid 7 does not exist\) \(heartbeat 3.0s ago, not expired\)$/,
    );
    expect(held.waited).toBe(false);
    await held.release();
  });

  it('a holder not proven gone is refused as before', async () => {
    const { store, deps } = setup();
    store.holder = other;
    await expect(
      takeLease({ ...deps, holderGone: () => ({ gone: false }) }, request('me', 'r8')),
    ).rejects.toMatchObject({ exitCode: 3 });
    expect(store.calls).toEqual(['take me']);
  });

  it('a holder that only shares the host name is left to expire, and the refusal says why', async () => {
    const { store, deps, log } = setup();
    store.holder = other;
    const why = 'it shares this machine, but not this PID namespace';
    await expect(
      takeLease({ ...deps, holderGone: () => ({ gone: false, why }) }, request('me', 'r8')),
    ).rejects.toMatchObject({
      exitCode: 3,
      message:
        'the fleet lease is held (on web-1) by deploy rollout r7 by ci@runner pid 7 (https://github.com/o/r/actions/runs/9), heartbeat 3.0s ago (it shares this machine, but not this PID namespace, so it is left to expire); wait for it, or queue with --wait-lease DURATION',
    });
    expect(store.calls).toEqual(['take me']);
    expect(log.events.some((e) => e.event === 'lease.takeover')).toBe(false);
  });

  it('a wait that runs out is refused, saying how long it waited', async () => {
    const { store, clock, deps } = setup();
    store.holder = other;
    const taking = takeLease(deps, request('me'), 5_000);
    const refused = expect(taking).rejects.toThrow('heartbeat 3.0s ago after waiting 5.0s');
    await clock.advance(6_000);
    await refused;
  });

  it('the holder renews every 5 s until released, then gives every piece back, saying what holding cost', async () => {
    const { store, clock, log, deps } = setup();
    const held = await takeLease(deps, request('me'));
    await clock.advance(16_000);
    expect(store.calls).toEqual(['take me', 'renew me', 'renew me', 'renew me']);
    await held.release();
    await held.release();
    await clock.advance(20_000);
    expect(store.calls.slice(4)).toEqual(['release me']);
    expect(log.events.filter((e) => e.event === 'lease.released')).toEqual([
      expect.objectContaining({ fields: { release_ms: 0, renewals: 3, renew_ms: 0 } }),
    ]);
  });

  it('a renewal that finds the lease taken over aborts the holder at its next safe point', async () => {
    const { store, clock, log, deps } = setup();
    const held = await takeLease(deps, request('me'));
    store.renewAnswer = {
      ok: false,
      where: 'web-2',
      holder: { where: 'web-2', lease: record(other), ageMs: 0 },
    };
    await clock.advance(5_000);
    expect(held.lost.aborted).toBe(true);
    expect(log.events.find((e) => e.event === 'lease.lost')).toMatchObject({
      level: 'error',
      host: 'web-2',
    });
    await held.release();
  });

  it('a takeover is said, with the old holder and its heartbeat age', async () => {
    const { store, deps, log } = setup();
    store.take = () =>
      Promise.resolve({
        ok: true,
        tookOver: [{ where: 'web-1', lease: record(other), ageMs: 45_000 }],
      });
    const held = await takeLease(deps, request('me'));
    expect(log.events.find((e) => e.event === 'lease.takeover')?.message).toBe(
      'took over an expired fleet lease of deploy rollout r7 by ci@runner pid 7 (https://github.com/o/r/actions/runs/9): its heartbeat was 45s old (expired after 30s)',
    );
    await held.release();
  });

  it('a piece replaced before it expired (its holder proven gone) is never called expired', async () => {
    const { store, deps, log } = setup();
    store.take = () =>
      Promise.resolve({
        ok: true,
        tookOver: [{ where: 'web-1', lease: record(other), ageMs: 4_500 }],
      });
    const held = await takeLease(deps, request('me'));
    expect(log.events.find((e) => e.event === 'lease.takeover')?.message).toBe(
      'took over the fleet lease of deploy rollout r7 by ci@runner pid 7 (https://github.com/o/r/actions/runs/9): that process was proven gone (heartbeat 4.5s old, not expired)',
    );
    await held.release();
  });

  it('the refusal after a wait drops the hint', () => {
    expect(refusal({ where: 'web-3', lease: record(request('x')), ageMs: 1_500 }, 600_000)).toBe(
      'the fleet lease is held (on web-3) by deploy rollout r7 by alice@laptop pid 42, heartbeat 1.5s ago after waiting 10m',
    );
  });
});
