import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import type { LogEvent } from '../../src/log.js';
import { LEASE_RENEW_MS, type LeaseRecord, type LeaseRequest } from '../../src/protocol/lease.js';
import { refusal, takeLease } from '../../src/rollout/lease/fleet-lease.js';
import type { LeaseStore, LeaseView } from '../../src/rollout/lease/store.js';

/**
 * The contract every store of the fleet lease keeps (rollout/lease/store.ts),
 * one suite run against each: the hosts store (unit, the agents' own lease
 * code in temp directories) and etcd (e2e, a real etcd). A store's lab says
 * only how to reach it and how time passes there.
 */
export interface LeaseLab {
  /** the store as one more deployer sees it (its own connection) */
  store(): LeaseStore;
  /** let the store's own clock run past the TTL of every lease that is not renewed */
  expire(): Promise<void>;
  /** put `text` where the store keeps the lease (on every piece) */
  plant(text: string): Promise<void>;
  /** a live lease of `request` stamped `aheadMs` ahead of the store's clock (a clock off) */
  plantAhead(request: LeaseRequest, aheadMs: number): Promise<void>;
  close(): Promise<void>;
}

const holder = { user: 'alice', host: 'laptop', pid: 42 };
export function leaseAsk(id: string, release = 'r7'): LeaseRequest {
  return { id, holder: { ...holder, pid: holder.pid + id.length }, command: 'rollout', release };
}

/** a value this handoff wrote, but of a newer lease version */
export function newerLease(request: LeaseRequest): string {
  const at = new Date().toISOString();
  const record: LeaseRecord = { ...request, version: 2, started: at, heartbeat: at, ttlMs: 30_000 };
  return JSON.stringify(record);
}

const ids = (views: readonly LeaseView[]) => views.map((v) => v.lease?.id ?? null);

export function leaseConformance(name: string, open: () => Promise<LeaseLab>): void {
  describe(`the fleet lease contract: ${name}`, () => {
    let lab: LeaseLab;
    const stores: LeaseStore[] = [];
    const store = () => {
      const s = lab.store();
      stores.push(s);
      return s;
    };
    beforeEach(async () => {
      lab = await open();
    });
    afterEach(async () => {
      for (const s of stores.splice(0)) s.close?.();
      await lab.close();
    });

    it('takes all or nothing: the holder has every piece, a refused deployer none', async () => {
      const a = store();
      expect(await a.take(leaseAsk('a'))).toMatchObject({ ok: true });
      const views = await store().read();
      expect(views.length).toBeGreaterThan(0);
      expect(ids(views).every((id) => id === 'a')).toBe(true);
      expect(await store().take(leaseAsk('b'))).toMatchObject({ ok: false });
      expect(ids(await store().read()).every((id) => id === 'a')).toBe(true);
      await a.release(leaseAsk('a'));
      expect(ids(await store().read()).every((id) => id === null)).toBe(true);
    });

    it('refuses naming the holder: who, what, which release, where', async () => {
      await store().take(leaseAsk('a'));
      const take = await store().take(leaseAsk('b', 'r8'));
      if (take.ok) throw new Error('a second deployer took a held lease');
      expect(take.holder.lease).toMatchObject({ id: 'a', release: 'r7', command: 'rollout' });
      expect(refusal(take.holder)).toMatch(
        /^the fleet lease is held \(on .+\) by deploy rollout r7 by alice@laptop pid 43, heartbeat .+ ago; wait for it, or queue with --wait-lease DURATION$/,
      );
    });

    it('queues with --wait-lease and takes it once the holder releases, naming whom it waited for (superseded reads that)', async () => {
      const a = store();
      await a.take(leaseAsk('a'));
      const gate = gatedClock();
      const events: LogEvent[] = [];
      const waiting = new Promise<void>((resolve) => {
        const log = {
          emit: (e: LogEvent) => {
            events.push(e);
            if (e.event === 'lease.wait') resolve();
          },
        };
        const signal = new AbortController().signal;
        gate.taking = takeLease(
          { store: store(), clock: gate, log, signal },
          leaseAsk('b'),
          60_000,
        );
        gate.taking.catch(() => undefined);
      });
      await waiting;
      await a.release(leaseAsk('a'));
      gate.open();
      const held = await gate.taking;
      expect(held?.waited).toBe(true);
      expect(held?.behind.map((h) => [h.lease.id, h.lease.release])).toEqual([['a', 'r7']]);
      expect(ids(await store().read()).every((id) => id === 'b')).toBe(true);
      await held?.release();
    });

    it('renews the holder, and only the holder', async () => {
      const a = store();
      await a.take(leaseAsk('a'));
      expect(await a.renew(leaseAsk('a'))).toEqual({ ok: true, unreachable: [] });
      expect(await store().renew(leaseAsk('b'))).toMatchObject({ ok: false });
      await store().release(leaseAsk('b'));
      expect(ids(await store().read()).every((id) => id === 'a')).toBe(true);
    });

    it(`detects loss at the first renewal after it (within ${LEASE_RENEW_MS / 1000}s, the renewal period), naming the new holder`, async () => {
      const a = store();
      await a.take(leaseAsk('a'));
      await lab.expire();
      expect(await store().take(leaseAsk('b'))).toMatchObject({ ok: true });
      expect(await a.renew(leaseAsk('a'))).toMatchObject({
        ok: false,
        holder: { lease: { id: 'b' } },
      });
      // the loser's release leaves the new holder's lease alone
      await a.release(leaseAsk('a'));
      expect(ids(await store().read()).every((id) => id === 'b')).toBe(true);
    });

    it("a lease not renewed expires by the store's clock, and the next deployer takes it", async () => {
      await store().take(leaseAsk('dead'));
      expect(await store().take(leaseAsk('b'))).toMatchObject({ ok: false });
      await lab.expire();
      expect(await store().take(leaseAsk('b'))).toMatchObject({ ok: true });
      expect(ids(await store().read()).every((id) => id === 'b')).toBe(true);
    });

    it('takes over before expiry only a holder proven gone (replaces), naming it', async () => {
      const a = store();
      await a.take(leaseAsk('gone'));
      const take = await store().take({ ...leaseAsk('b'), replaces: ['gone'] });
      expect(take.ok && take.tookOver.map((p) => p.lease.id)).toContain('gone');
      expect(await a.renew(leaseAsk('gone'))).toMatchObject({ ok: false });
    });

    it('refuses a garbage value, never taking it over (exit 3, saying it may be live)', async () => {
      await lab.plant('{"not": "a lease"');
      const taking = store().take(leaseAsk('b'));
      await expect(taking).rejects.toMatchObject({ exitCode: 3 });
      await expect(taking).rejects.toThrow(/is not a lease handoff can read; it may be live/);
      expect((await store().read()).some((v) => v.problem)).toBe(true);
    });

    it('refuses a value from a newer version, naming the version', async () => {
      await lab.plant(newerLease(leaseAsk('future')));
      const taking = store().take(leaseAsk('b'));
      await expect(taking).rejects.toMatchObject({ exitCode: 3 });
      await expect(taking).rejects.toThrow(/written by a newer handoff \(lease version 2\)/);
    });

    it('never takes over early a lease stamped ahead of its clock', async () => {
      await lab.plantAhead(leaseAsk('ahead'), 10 * 60_000);
      const refused = await store()
        .take(leaseAsk('b'))
        .then(
          (t) => !t.ok && t.holder.lease.id === 'ahead',
          (e: unknown) => (e as { exitCode?: number }).exitCode === 3,
        );
      expect(refused).toBe(true);
      expect(ids(await store().read()).some((id) => id === 'b')).toBe(false);
    });

    it('an operator breaks it: the holder is named, the lease is free, the holder finds it lost', async () => {
      const a = store();
      await a.take(leaseAsk('a'));
      const broken = await store().break({ ...leaseAsk('op'), command: 'lease break' });
      expect(ids(broken)).toContain('a');
      expect(ids(await store().read()).every((id) => id === null)).toBe(true);
      expect(await a.renew(leaseAsk('a'))).toMatchObject({ ok: false });
    });
  });
}

/**
 * The waiting deployer's clock: its first sleep (between two takes) waits for
 * the test to open the gate; every later one (the holder's renewals) lasts
 * until the lease is released.
 */
function gatedClock(): Clock & {
  open(): void;
  taking?: ReturnType<typeof takeLease>;
} {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let first = true;
  return {
    open,
    now: () => Date.now(),
    sleep: (_ms, signal) => {
      signal?.throwIfAborted();
      if (first) {
        first = false;
        return gate;
      }
      return new Promise((_, reject) =>
        signal?.addEventListener('abort', () => reject(signal.reason as Error)),
      );
    },
  };
}
