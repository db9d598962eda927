import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../../src/clock.js';
import { CancelledError, ExitCode } from '../../../../src/errors.js';
import { MemoryLog } from '../../../../src/log.js';
import type { LeaseRecord } from '../../../../src/protocol/lease.js';
import { takeLease } from '../../../../src/rollout/lease/fleet-lease.js';
import type { LeaseStore, LeaseTake } from '../../../../src/rollout/lease/store.js';
import { request } from './lease-hosts.js';

/** A clock whose sleeps end only when their signal aborts (the wait is cancelled mid-sleep). */
class ParkedClock implements Clock {
  readonly sleeping: Promise<void>;
  private asleep!: () => void;
  constructor() {
    this.sleeping = new Promise((r) => (this.asleep = r));
  }
  now(): number {
    return Date.UTC(2026, 11, 1);
  }
  sleep(_ms: number, signal?: AbortSignal): Promise<void> {
    this.asleep();
    return new Promise((_, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason as Error));
    });
  }
}

const holder: LeaseRecord = {
  ...request('first', 'r7'),
  holder: { user: 'ci', host: 'runner', pid: 7 },
  version: 1,
  started: '2026-12-01T00:00:00.000Z',
  heartbeat: '2026-12-01T00:00:00.000Z',
  ttlMs: 30_000,
};

/** Always held by someone else. */
const heldStore: LeaseStore = {
  take: (): Promise<LeaseTake> =>
    Promise.resolve({ ok: false, holder: { where: 'web-1', lease: holder, ageMs: 2_000 } }),
  renew: () => Promise.resolve({ ok: true, unreachable: [] }),
  release: () => Promise.resolve(),
  read: () => Promise.resolve([]),
  break: () => Promise.resolve([]),
};

describe('a --wait-lease wait that is cancelled (Ctrl-C, a CI cancel of a queued job)', () => {
  it('ends as one line naming the holder, exit 3, marked cancelled: not an internal error', async () => {
    const clock = new ParkedClock();
    const interrupt = new AbortController();
    const deps = { store: heldStore, clock, log: new MemoryLog(), signal: interrupt.signal };
    const taking = takeLease(deps, request('me', 'r8'), 600_000);
    await clock.sleeping;
    // what interruptSignal aborts with (cli/connections.ts)
    interrupt.abort(new Error('SIGINT'));
    const error = await taking.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CancelledError);
    expect(error).toMatchObject({
      exitCode: ExitCode.blocked,
      cancelled: true,
      message:
        'cancelled (SIGINT) while waiting for the fleet lease held (on web-1) by deploy rollout r7 by ci@runner pid 7; nothing was changed',
    });
  });
});
