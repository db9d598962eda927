import { describe, expect, it } from 'vitest';
import { failureMessage } from '../../../src/cli/rollout/rollout-report.js';
import type { Config } from '../../../src/config/types.js';
import type { EvidenceDeps } from '../../../src/evidence/create-source.js';
import type { WindowCounts } from '../../../src/evidence/kit/counts.js';
import type { EvidenceSource } from '../../../src/evidence/kit/source.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import type { RolloutOptions } from '../../../src/rollout/types.js';
import { testConfig, withBalancerCanary } from '../../support/config.js';
import { fleet } from '../../support/rollout-fleet.js';

const options: RolloutOptions = { release: 'r2', dryRun: false, rollback: true };

/**
 * Traffic the way a balancer counts it: every read, each host has answered
 * 100 more requests, and a host on a release in `bad` failed `failing` of them.
 */
function traffic(release: (host: string) => string | null, bad: string, failing: number) {
  const totals = new Map<string, { requests: number; failed: number }>();
  const advance = (host: string) => {
    const t = totals.get(host) ?? { requests: 0, failed: 0 };
    const next = {
      requests: t.requests + 100,
      failed: t.failed + (release(host) === bad ? failing : 0),
    };
    totals.set(host, next);
    return next;
  };
  const source: EvidenceSource = {
    kind: 'balancer',
    label: 'haproxy be_api',
    open: (hosts) => {
      const start = new Map(
        hosts.map((h) => [h, { ...(totals.get(h) ?? { requests: 0, failed: 0 }) }]),
      );
      return Promise.resolve({
        openedAt: 0,
        read: () =>
          Promise.resolve(
            new Map<string, WindowCounts>(
              hosts.map((h) => {
                const end = advance(h);
                const s = start.get(h) ?? { requests: 0, failed: 0 };
                return [
                  h,
                  {
                    kind: 'counted',
                    counts: { requests: end.requests - s.requests, failed: end.failed - s.failed },
                  },
                ];
              }),
            ),
          ),
      });
    },
  };
  const evidence: EvidenceDeps = { receipt: source, judgement: () => ({ source }) };
  return evidence;
}

function withCanary(extra: Partial<Config['rollout']> = {}): Config {
  const base = testConfig({}, 3);
  return {
    ...base,
    rollout: { ...withBalancerCanary(base.rollout), ...extra },
  };
}

describe('a rollout with a canary', () => {
  it('stops a release whose routes fail at the canary: rolled back, the rest untouched, with the numbers', async () => {
    const f = fleet(withCanary());
    const deps = { ...f.deps, evidence: traffic((h) => f.hosts.get(h)?.release ?? null, 'r2', 60) };
    const result = await rollout(deps, options);
    expect(result.ok).toBe(false);
    expect(result.judgements?.[0]).toMatchObject({
      kind: 'canary',
      passed: false,
      early: true,
      hosts: ['web-1'],
    });
    expect([1, 2, 3].map((n) => f.host(n).release)).toEqual(['r1', 'r1', 'r1']);
    expect(result.notReached).toEqual(['web-2', 'web-3']);
    expect(result.fleetRollback?.hosts.map((h) => [h.host, h.result])).toEqual([
      ['web-1', 'deployed'],
    ]);
    expect(failureMessage(result)).toMatch(
      /^rollout of r2 stopped at the canary: canary \d+ errors of \d+ requests \(60\.0 %\), baseline 0 errors of \d+ requests \(0 %\): conclusively worse; 1 of 1 host\(s\) on the new release returned to their previous release; web-2, web-3 not reached$/,
    );
    // the receipt saw the canary's failures during web-1's window and in all
    expect(result.receipt?.hosts[0]).toMatchObject({ host: 'web-1' });
    expect(result.receipt?.total.failed).toBeGreaterThan(0);
  });

  it("writes each host's receipt into that host's audit, before its unlock", async () => {
    const f = fleet(testConfig({}, 3));
    const deps = { ...f.deps, evidence: traffic((h) => f.hosts.get(h)?.release ?? null, 'r2', 0) };
    const result = await rollout(deps, options);
    expect(result.ok).toBe(true);
    for (const n of [1, 2, 3]) {
      const steps = f.host(n).audit.map((e) => e.step);
      expect(steps.indexOf('receipt'), steps.join(' ')).toBe(steps.indexOf('unlock') - 1);
      const line = f.host(n).audit.find((e) => e.step === 'receipt')?.detail;
      expect(line).toMatch(
        new RegExp(`^haproxy be_api saw 0 failed of \\d+ requests to web-${n} during its deploy$`),
      );
    }
    expect(result.receipt?.hosts.map((h) => h.host)).toEqual(['web-1', 'web-2', 'web-3']);
  });

  it("opens a host's window beside its lock, and drains it only once the window is open", async () => {
    const f = fleet(testConfig({}, 3));
    const evidence = traffic((h) => f.hosts.get(h)?.release ?? null, 'r2', 0);
    const counted = evidence.receipt;
    if (!counted) throw new Error('no receipt source');
    const atOpened: string[][] = [];
    const source: EvidenceSource = {
      ...counted,
      async open(hosts) {
        if (hosts.length === 1 && hosts[0] === 'web-1') {
          // the window answers only once the lock was asked for: it must not hold the lock up
          for (let turn = 0; !f.host(1).calls.includes('lock'); turn += 1) {
            if (turn > 1000) throw new Error('the lock waited for the receipt window');
            await new Promise((resolve) => setImmediate(resolve));
          }
          atOpened.push([...f.host(1).calls]);
        }
        return counted.open(hosts);
      },
    };
    const result = await rollout(
      { ...f.deps, evidence: { ...evidence, receipt: source } },
      options,
    );
    expect(result.ok).toBe(true);
    expect(atOpened).toHaveLength(1);
    expect(atOpened[0]).toContain('lock');
    expect(atOpened[0]).not.toContain('drain');
    expect(f.host(1).calls).toContain('drain');
    expect(result.receipt?.hosts[0]).toMatchObject({ host: 'web-1', failed: 0 });
  });

  /**
   * web-1's window, each of its reads seen: what the host had been asked by then, and
   * whether the balancer had it in rotation; its last pass of confirm (the second
   * confirm call: the streak's is the first) answers only once `release` is called.
   */
  function watchedWindow(f: ReturnType<typeof fleet>) {
    const evidence = traffic((h) => f.hosts.get(h)?.release ?? null, 'r2', 0);
    const counted = evidence.receipt;
    if (!counted) throw new Error('no receipt source');
    const reads: { calls: string[]; inRotation: boolean | null | undefined }[] = [];
    const source: EvidenceSource = {
      ...counted,
      async open(hosts) {
        const window = await counted.open(hosts);
        if (hosts.length !== 1 || hosts[0] !== 'web-1') return window;
        return {
          ...window,
          read: async (signal) => {
            const states = await f.balancer.states(['web-1']);
            reads.push({
              calls: [...f.host(1).calls],
              inRotation: states.get('web-1')?.inRotation,
            });
            return window.read(signal);
          },
        };
      },
    };
    return { deps: { ...f.deps, evidence: { ...evidence, receipt: source } }, reads };
  }

  it("reads a host's window end beside confirm's last pass, the host back in rotation", async () => {
    const f = fleet(testConfig({}, 3));
    const { deps, reads } = watchedWindow(f);
    let passHeld: boolean | undefined;
    f.host(1).onCall = (op) => {
      if (op !== 'confirm' || f.host(1).calls.filter((c) => c === 'confirm').length !== 2) return;
      // the last pass answers once the window's end was read, or after a bounded wait: a
      // read that waited for the pass would come only after it
      f.host(1).holdVerify = (async () => {
        for (let turn = 0; reads.length === 0 && turn < 1000; turn += 1)
          await new Promise((resolve) => setImmediate(resolve));
        passHeld = reads.length > 0;
      })();
    };
    const result = await rollout(deps, options);
    expect(result.ok).toBe(true);
    expect(passHeld).toBe(true);
    // one read: the end read beside the pass is the window's end, not read again at the unlock
    expect(reads).toHaveLength(1);
    expect(reads[0]?.inRotation).toBe(true);
    expect(reads[0]?.calls.filter((c) => c === 'confirm')).toHaveLength(2);
    expect(reads[0]?.calls).not.toContain('unlock');
    expect(result.receipt?.hosts[0]).toMatchObject({ host: 'web-1', requests: 100, failed: 0 });
    // still in the host's audit before its unlock
    const steps = f.host(1).audit.map((e) => e.step);
    expect(steps.indexOf('receipt'), steps.join(' ')).toBe(steps.indexOf('unlock') - 1);
  });

  it('a confirm whose last pass fails drops the end read beside it: the window ends after the rollback', async () => {
    const f = fleet(testConfig({}, 3));
    const { deps, reads } = watchedWindow(f);
    f.host(1).onCall = (op) => {
      // the release breaks under traffic: its last pass of confirm fails
      if (op === 'confirm' && f.host(1).calls.filter((c) => c === 'confirm').length === 2)
        f.host(1).bad.add('r2');
    };
    const result = await rollout(deps, options);
    expect(result.ok).toBe(false);
    expect(f.host(1).release).toBe('r1');
    // the window's end is the read after the rollback: back on r1, undrained, in rotation
    const last = reads.at(-1);
    expect(last?.calls).toContain('switch r1');
    expect(last?.calls.lastIndexOf('undrain')).toBeGreaterThan(
      last?.calls.indexOf('switch r1') ?? 0,
    );
    expect(last?.inRotation).toBe(true);
    // its figures are that read's (the traffic fake counts 100 requests more at each read)
    expect(result.receipt?.hosts[0]).toMatchObject({ host: 'web-1', requests: 100 * reads.length });
  });

  it('a canary whose counts cannot be read at all is inconclusive, as configured: never skipped', async () => {
    const f = fleet(withCanary());
    const evidence: EvidenceDeps = {
      judgement: () => ({ missing: 'source service cannot be read here' }),
    };
    const result = await rollout({ ...f.deps, evidence }, options);
    expect(result.ok).toBe(false);
    expect(result.judgements?.[0]).toMatchObject({ kind: 'canary', passed: false });
    expect(result.judgements?.[0]?.reason).toBe(
      'inconclusive (the counts cannot be read: source service cannot be read here): counts as failed, by inconclusive: fail',
    );
    expect([1, 2, 3].map((n) => f.host(n).release)).toEqual(['r1', 'r1', 'r1']);
  });

  it('says a host not read during the bake at WARN, with why (counts no service could write)', async () => {
    const f = fleet(withCanary());
    const why = (h: string) =>
      `${h}: the services' counts are implausible (1000000000 failed of 10 requests); not judged`;
    const source: EvidenceSource = {
      kind: 'balancer',
      label: 'service counts',
      open: (hosts) =>
        Promise.resolve({
          openedAt: 0,
          read: () =>
            Promise.resolve(
              new Map<string, WindowCounts>(
                hosts.map((h) => [h, { kind: 'unread', reason: why(h) }]),
              ),
            ),
        }),
    };
    const result = await rollout(
      { ...f.deps, evidence: { judgement: () => ({ source }) } },
      options,
    );
    expect(result.judgements?.[0]).toMatchObject({ kind: 'canary', passed: false });
    const progress = f.log.events.filter((e) => e.event === 'bake');
    expect(progress.length).toBeGreaterThan(0);
    for (const e of progress) {
      expect(e.level).toBe('warn');
      expect(e.message).toContain('(not read: ');
      expect(e.message).toContain('implausible');
    }
  });

  it('bakes a good release for the whole bake, then goes on to every host', async () => {
    const f = fleet(withCanary());
    const deps = { ...f.deps, evidence: traffic((h) => f.hosts.get(h)?.release ?? null, 'r2', 0) };
    const started = f.clock.now();
    const result = await rollout(deps, options);
    expect(result.ok).toBe(true);
    expect(result.judgements?.map((j) => [j.kind, j.passed])).toEqual([['canary', true]]);
    expect([1, 2, 3].map((n) => f.host(n).release)).toEqual(['r2', 'r2', 'r2']);
    expect(f.clock.now() - started).toBeGreaterThanOrEqual(60_000);
    const progress = f.log.events.filter((e) => e.event === 'bake');
    expect(progress).toHaveLength(12);
    expect(progress.at(-1)?.message).toMatch(
      /^canary: canary 0 errors of \d+ requests \(0 %\), baseline .*; 0s left$/,
    );
  });

  it('follows on_failure for a failed bake between later waves', async () => {
    const f = fleet(withCanary({ canary: undefined, bake: 30_000, onFailure: 'stop' }));
    const deps = { ...f.deps, evidence: traffic((h) => f.hosts.get(h)?.release ?? null, 'r2', 60) };
    const result = await rollout(deps, options);
    expect(result.judgements?.[0]).toMatchObject({ kind: 'bake', passed: false });
    // stop: web-1 stays on the new release, nothing rolled back
    expect(result.fleetRollback).toBeUndefined();
    expect([1, 2, 3].map((n) => f.host(n).release)).toEqual(['r2', 'r1', 'r1']);
  });
});
