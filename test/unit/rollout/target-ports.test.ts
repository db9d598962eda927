import { describe, expect, it } from 'vitest';
import { BalancerSet } from '../../../src/balancer/set.js';
import { BlockedError } from '../../../src/errors.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import type { RolloutOptions } from '../../../src/rollout/types.js';
import { FakeAlbBalancer } from '../../support/fake-alb.js';
import { FakeBalancer, type FakeHost } from '../../support/fake-fleet.js';
import type { FakeClock } from '../../support/fake-clock.js';
import { fleet, refusal } from '../../support/rollout-fleet.js';

const options: RolloutOptions = { release: 'r2', dryRun: false, rollback: true };

/** the fake ALB, as an ALB: its targets name the port traffic is sent to */
class Alb extends FakeAlbBalancer {
  override readonly kind = 'alb' as const;
}

/** an ALB whose target group knows web-2 as 10.0.1.12:8443, an HAProxy that knows it by name */
function albFleet(albTargets: Record<string, string>) {
  return fleet(undefined, 'r1', (hosts: Map<string, FakeHost>, clock: FakeClock) => {
    return new BalancerSet([
      {
        name: 'alb:api-internal',
        balancer: new Alb(hosts, clock),
        targets: new Map(Object.entries(albTargets)),
      },
      { name: 'haproxy:a', balancer: new FakeBalancer(hosts, clock), targets: new Map() },
    ]) as unknown as FakeBalancer;
  });
}

describe('preflight and a balancer target on a port the host does not listen on', () => {
  it('refuses, exit 3, one line naming the host, the balancer and the port, before anything is drained', async () => {
    const f = albFleet({ 'web-2': '10.0.1.12:8434', 'web-3': 'i-0c3:8443' });
    f.host(2).notListening.add('10.0.1.12:8434');
    const failure = await refusal(rollout(f.deps, options));
    expect(failure).toBeInstanceOf(BlockedError);
    expect(failure.message).toBe(
      'preflight: web-2: nothing listens on port 8434, where balancer alb:api-internal sends its target 10.0.1.12:8434; fix the port in deploy.yml (draining it would wait for a health check that never passes)',
    );
    for (const n of [1, 2, 3]) expect(f.actions(n).filter((a) => a !== 'listening')).toEqual([]);
    // an instance target is asked by its port alone; a target without a port is not asked
    expect(f.host(3).calls).toContain('listening');
    expect(f.host(1).calls).not.toContain('listening');
  });

  it('asks nothing of a host with no release live: its first deploy starts what will listen', async () => {
    const f = albFleet({ 'web-2': '10.0.1.12:8434' });
    f.host(2).release = null;
    f.host(2).notListening.add('10.0.1.12:8434');
    const result = await rollout(f.deps, { ...options, dryRun: true });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(f.host(2).calls).not.toContain('listening');
  });

  it('passes preflight when every ported target listens', async () => {
    const f = albFleet({ 'web-2': '10.0.1.12:8443' });
    // a dry run: the fake balancers know the hosts by name only, not by 10.0.1.12:8443
    const result = await rollout(f.deps, { ...options, dryRun: true });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(f.host(2).calls.filter((c) => c === 'listening')).toHaveLength(1);
  });

  it('asks nothing of hosts behind an HAProxy alone: its targets are server names', async () => {
    const f = fleet();
    f.host(1).notListening.add('8080');
    expect((await rollout(f.deps, options)).ok).toBe(true);
    for (const n of [1, 2, 3]) expect(f.host(n).calls).not.toContain('listening');
  });
});
