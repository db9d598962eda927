import { describe, expect, it } from 'vitest';
import type { Balancer, BalancerReload } from '../../../src/balancer/balancer.js';
import { BalancerSet } from '../../../src/balancer/set.js';
import type { HealthCheckSettings } from '../../../src/config/types.js';
import { BlockedError, OperationError } from '../../../src/errors.js';
import { plannedDrain } from '../../../src/rollout/handshake/planned-drain.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import type { RolloutOptions } from '../../../src/rollout/types.js';
import { testConfig } from '../../support/config.js';
import { FakeAlbBalancer } from '../../support/fake-alb.js';
import { FakeBalancer, settings, type FakeHost } from '../../support/fake-fleet.js';
import type { FakeClock } from '../../support/fake-clock.js';
import { fleet, refusal } from '../../support/rollout-fleet.js';

const options: RolloutOptions = { release: 'r2', dryRun: false, rollback: true };

// lb-a notices a drain after 2 × 1 s; lb-b, with inter 3s fall 3, only after 9 s
const fast: HealthCheckSettings = { ...settings, interval: 1_000, timeout: 500 };
const slow: HealthCheckSettings = { ...settings, interval: 3_000, unhealthyThreshold: 3 };

function pairFleet(
  make: (hosts: Map<string, FakeHost>, clock: FakeClock) => [Balancer, Balancer] = (h, c) => [
    new FakeBalancer(h, c, fast),
    new FakeBalancer(h, c, slow),
  ],
  config = testConfig(),
) {
  let pair: [Balancer, Balancer] | undefined;
  const f = fleet(config, 'r1', (hosts, clock) => {
    pair = make(hosts, clock);
    return new BalancerSet([
      { name: 'lb-a', balancer: pair[0], targets: new Map() },
      { name: 'lb-b', balancer: pair[1], targets: new Map() },
    ]) as unknown as FakeBalancer;
  });
  return { ...f, pair: pair! };
}

/** a balancer that has one target out of rotation whatever the host does */
class OutOn extends FakeBalancer {
  constructor(
    hosts: Map<string, FakeHost>,
    clock: FakeClock,
    s: HealthCheckSettings,
    private readonly out: string,
  ) {
    super(hosts, clock, s);
  }
  override async states(targets: readonly string[]) {
    const states = new Map(await super.states(targets));
    states.set(this.out, { target: this.out, state: 'unhealthy', inRotation: false });
    return states;
  }
}

/** a balancer that reloads when asked, as the HAProxy adapter tells its listeners */
class Reloading extends FakeBalancer {
  readonly listeners = new Set<(r: BalancerReload) => void>();
  onReload(listener: (r: BalancerReload) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  reload(message: string): void {
    for (const l of this.listeners) l({ message });
  }
}

describe('a rollout through two balancers', () => {
  it('audits a reload of one of them on the host mid-handshake, named by that balancer', async () => {
    let lbB: Reloading | undefined;
    const f = pairFleet((h, c) => {
      lbB = new Reloading(h, c, slow);
      return [new FakeBalancer(h, c, fast), lbB];
    });
    f.host(1).onCall = (op) => {
      if (op === 'stop') lbB?.reload('haproxy /run/b.sock reloaded (pid 1 → 2, up 0s)');
    };
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    const reloads = f.host(1).audit.filter((e) => e.step === 'balancer-reload');
    expect(reloads).toMatchObject([
      {
        release: 'r2',
        result: 'ok',
        who: 'ci@runner',
        detail: 'lb-b: haproxy /run/b.sock reloaded (pid 1 → 2, up 0s)',
      },
    ]);
    // the others held no lock at that moment
    for (const n of [2, 3])
      expect(f.host(n).audit.some((e) => e.step === 'balancer-reload')).toBe(false);
    // once the rollout ended, nobody listens
    expect(lbB?.listeners.size).toBe(0);
  });

  it('stops a host only after the slower balancer took it out too', async () => {
    const f = pairFleet();
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    const awaitOut = result.hosts[0]?.steps.find((s) => s.step === 'await-out');
    // lb-a had it out after 2 s; the wait went on until lb-b's 9 s
    expect(awaitOut?.duration_ms).toBeGreaterThanOrEqual(9_000);
    // the bound is the slower balancer's: 3 s × 3 + its 2 s check timeout
    expect(awaitOut?.bound_ms).toBe(11_000);
    // and the record says when each one had it out
    expect(Object.keys(awaitOut?.balancers ?? {})).toEqual(['lb-a', 'lb-b']);
    expect(awaitOut?.balancers?.['lb-a']).toBeLessThan(3_000);
    expect(awaitOut?.balancers?.['lb-b']).toBeGreaterThanOrEqual(9_000);
    const awaitIn = result.hosts[0]?.steps.find((s) => s.step === 'await-in');
    expect(Object.values(awaitIn?.balancers ?? {}).every((ms) => typeof ms === 'number')).toBe(
      true,
    );
  });

  it('fails a host that one balancer keeps in rotation, naming both views', async () => {
    const f = pairFleet((h, c) => [
      new FakeBalancer(h, c, fast),
      new FakeBalancer(h, c, slow, new Set(['web-1'])),
    ]);
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(false);
    const failure = result.hosts[0]?.error ?? '';
    expect(failure).toContain('web-1: target web-1 still mixed (lb-a: unhealthy, lb-b: healthy)');
    // never stopped: lb-b still routes to it
    expect(f.host(1).calls).not.toContain('stop');
  });

  it('holds the capacity guard on each balancer and names the one that would fall short', async () => {
    const config = testConfig({ rollout: { ...testConfig().rollout, minHealthy: 2 } });
    const f = pairFleet((h, c) => {
      const b = new FakeAlbBalancer(h, c, { count: 1 }, slow);
      b.unregistered.set('web-3', 'absent');
      return [new FakeBalancer(h, c, fast), b];
    }, config);
    // web-3 is registered on lb-a only: a refusal naming lb-b, before the guard
    const error = await refusal(rollout(f.deps, options));
    expect(error).toBeInstanceOf(BlockedError);
    expect(error.message).toBe(
      "preflight: not registered in balancer lb-b's target group: web-3 (target web-3: not registered in the target group); register it there or correct hosts[].target or that balancer's targets; nothing was drained",
    );
    expect(f.host(1).calls).not.toContain('drain');
  });

  it('counts min_healthy on each balancer: a host out on lb-b leaves it too few', async () => {
    const config = testConfig({ rollout: { ...testConfig().rollout, minHealthy: 2 } });
    const f = pairFleet(
      (h, c) => [new FakeBalancer(h, c, fast), new OutOn(h, c, slow, 'web-3')],
      config,
    );
    const error = await refusal(rollout(f.deps, options));
    expect(error.message).toBe(
      'capacity guard: lb-b: only 1 other target(s) in rotation, min_healthy is 2: draining web-1 would leave too few; nothing was drained',
    );
  });

  it('keeps the ALB fail-open minimum of each target group', async () => {
    const f = pairFleet((h, c) => [
      new FakeAlbBalancer(h, c, { count: 1 }, fast),
      new FakeAlbBalancer(h, c, { count: 3 }, slow),
    ]);
    const error = await refusal(rollout(f.deps, options));
    expect(error.message).toMatch(
      /^capacity guard: lb-b: draining web-1 would leave 2 healthy target\(s\), below the target group's unhealthy-state routing minimum of 3/,
    );
  });

  it('deregisters and registers on each balancer with drain.method deregister', async () => {
    const base = testConfig();
    const config = { ...base, drain: { ...base.drain, method: 'deregister' as const } };
    const withDelay = { deregistrationDelay: 30_000 };
    let a: FakeBalancer | undefined;
    let b: FakeBalancer | undefined;
    const f = pairFleet((h, c) => {
      a = new FakeBalancer(h, c, { ...fast, ...withDelay });
      b = new FakeBalancer(h, c, { ...slow, ...withDelay });
      return [a, b];
    }, config);
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    expect(a?.deregistered).toEqual(['web-1', 'web-2', 'web-3']);
    expect(b?.deregistered).toEqual(['web-1', 'web-2', 'web-3']);
  });

  it('refuses on an invariant broken on one balancer only, naming it', async () => {
    const config = testConfig({ drain: { ...testConfig().drain, overlap: 1_000 } });
    const f = pairFleet(undefined, config);
    const error = await refusal(rollout(f.deps, options));
    expect(error.message).toBe(
      "refusing to roll out: invariant drain-before-stop on lb-b broken against the balancer's settings (see 'deploy check --live')",
    );
  });

  it('deploy drain waits for the slower balancer too', async () => {
    const f = pairFleet();
    const host = f.deps.config.hosts[0]!;
    const result = await plannedDrain(f.deps, host, f.host(1), {
      drain: true,
      leaseMs: 60_000,
      wait: true,
    });
    expect(result.confirmed).toBe(true);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(9_000 + f.deps.config.drain.overlap);
  });

  it('names the balancer whose call failed', async () => {
    const f = pairFleet((h, c) => {
      const b = new FakeBalancer(h, c, slow);
      b.failStates(new OperationError('socket closed'));
      return [new FakeBalancer(h, c, fast), b];
    });
    const error = await refusal(rollout(f.deps, options));
    expect(error.message).toBe('lb-b: socket closed');
  });
});
