import { describe, expect, it } from 'vitest';
import { OperationError } from '../../../src/errors.js';
import { plannedDrain } from '../../../src/rollout/handshake/planned-drain.js';
import { FakeBalancer, settings } from '../../support/fake-fleet.js';
import { fleet } from '../../support/rollout-fleet.js';

const LEASE = 60 * 60_000;

describe('deploy drain / undrain of one host', () => {
  it('returns from a drain only once the balancer has the target out and the overlap has passed', async () => {
    const f = fleet();
    const web1 = f.deps.config.hosts[0]!;
    const r = await plannedDrain(f.deps, web1, f.host(1), {
      drain: true,
      leaseMs: LEASE,
      wait: true,
    });
    const out = settings.interval * settings.unhealthyThreshold;
    expect(r).toMatchObject({ host: 'web-1', drained: true, confirmed: true });
    expect(r.elapsedMs).toBeGreaterThanOrEqual(out + f.deps.config.drain.overlap);
    expect((await f.balancer.states(['web-1'])).get('web-1')?.inRotation).toBe(false);
    // the lock is held only while the marker changes: the wait runs without it
    expect(f.host(1).calls).toEqual(['lock', 'drain', 'unlock']);
    expect(f.log.events.filter((e) => e.event === 'step').map((e) => e.fields?.step)).toEqual([
      'lock',
      'capacity',
      'drain',
      'await-out',
      'overlap',
    ]);
  });

  it('returns from an undrain only once the balancer has the target back in rotation', async () => {
    const f = fleet();
    const web1 = f.deps.config.hosts[0]!;
    await plannedDrain(f.deps, web1, f.host(1), { drain: true, leaseMs: LEASE, wait: true });
    const r = await plannedDrain(f.deps, web1, f.host(1), { drain: false, leaseMs: 0, wait: true });
    expect(r).toMatchObject({ drained: false, confirmed: true });
    expect(r.elapsedMs).toBeGreaterThanOrEqual(settings.interval * settings.healthyThreshold);
    expect((await f.balancer.states(['web-1'])).get('web-1')?.inRotation).toBe(true);
  });

  it('with --no-wait changes the marker and asks the balancer nothing', async () => {
    const f = fleet();
    const web1 = f.deps.config.hosts[0]!;
    const r = await plannedDrain(f.deps, web1, f.host(1), {
      drain: true,
      leaseMs: LEASE,
      wait: false,
    });
    expect(r).toMatchObject({ drained: true, confirmed: false, elapsedMs: 0 });
    expect(f.host(1).drained).toBe(true);
    expect(f.clock.sleeps).toEqual([]);
  });

  it('exits 1 naming the target state when the balancer keeps the target past the bound', async () => {
    const f = fleet(
      undefined,
      'r1',
      (hosts, clock) => new FakeBalancer(hosts, clock, settings, new Set(['web-1'])),
    );
    const web1 = f.deps.config.hosts[0]!;
    const failure = await plannedDrain(f.deps, web1, f.host(1), {
      drain: true,
      leaseMs: LEASE,
      wait: true,
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OperationError);
    expect((failure as OperationError).exitCode).toBe(1);
    expect((failure as Error).message).toBe(
      "web-1: target web-1 still healthy 12s after the drain (the timing model's bound); the host stays drained, but the balancer has not taken it out",
    );
    expect(f.host(1).drained).toBe(true);
    expect(f.host(1).locked).toBe(false);
  });

  it('exits 1 naming the target state when an undrained target never comes back', async () => {
    const f = fleet();
    const web1 = f.deps.config.hosts[0]!;
    f.host(1).running = false;
    const failure = await plannedDrain(f.deps, web1, f.host(1), {
      drain: false,
      leaseMs: 0,
      wait: true,
    }).catch((e: unknown) => e);
    expect((failure as Error).message).toMatch(
      /^web-1: target web-1 still unhealthy 17s after the undrain .*'deploy verify --hosts web-1'/,
    );
  });
});
