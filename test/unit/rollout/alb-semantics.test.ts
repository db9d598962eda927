import { describe, expect, it } from 'vitest';
import type { HealthCheckSettings } from '../../../src/config/types.js';
import type { Log } from '../../../src/log.js';
import { BlockedError } from '../../../src/errors.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import type { RolloutOptions } from '../../../src/rollout/types.js';
import { testConfig } from '../../support/config.js';
import { FakeAlbBalancer, type AlbMinimum } from '../../support/fake-alb.js';
import { settings } from '../../support/fake-fleet.js';
import { fleet, refusal } from '../../support/rollout-fleet.js';

const options: RolloutOptions = { release: 'r2', dryRun: false, rollback: true };

function albFleet(
  minimum?: AlbMinimum,
  more: Partial<HealthCheckSettings> = {},
  config = testConfig(),
) {
  let alb: FakeAlbBalancer | undefined;
  const f = fleet(config, 'r1', (hosts, clock) => {
    alb = new FakeAlbBalancer(hosts, clock, minimum, { ...settings, ...more });
    return alb;
  });
  return { ...f, alb: alb! };
}

const drained = (f: ReturnType<typeof albFleet>) =>
  [1, 2, 3].filter((n) => f.host(n).calls.includes('drain'));

describe('a rollout through an ALB', () => {
  it('refuses in preflight to drain a group into its fail-open minimum, and drains nothing', async () => {
    const f = albFleet({ count: 3 });
    const error = await refusal(rollout(f.deps, options));
    expect(error).toBeInstanceOf(BlockedError);
    expect(error.message).toBe(
      "capacity guard: draining web-1 would leave 2 healthy target(s), below the target group's unhealthy-state routing minimum of 3 target(s): the ALB would fail open and route requests to the drained host(s); lower target_group_health.unhealthy_state_routing.minimum_healthy_targets or add hosts; nothing was drained",
    );
    expect(drained(f)).toEqual([]);
  });

  it('rolls out when the fail-open minimum leaves room for one host out', async () => {
    const f = albFleet({ count: 2 });
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    expect(f.balancer.maxOut).toBe(1);
  });

  it('refuses a host whose target the group has only on another port, naming it, before any drain', async () => {
    const f = albFleet();
    f.alb.unregistered.set('web-2', 'other-port');
    const error = await refusal(rollout(f.deps, options));
    expect(error).toBeInstanceOf(BlockedError);
    expect(error.message).toBe(
      "preflight: not registered in the balancer's target group: web-2 (target web-2: registered on port 80, not 8080); register it there or correct hosts[].target; nothing was drained",
    );
    expect(drained(f)).toEqual([]);
  });

  it('refuses an absent target with drain.method health', async () => {
    const f = albFleet();
    f.alb.unregistered.set('web-3', 'absent');
    const error = await refusal(rollout(f.deps, options));
    expect(error.message).toContain('web-3 (target web-3: not registered in the target group)');
    expect(drained(f)).toEqual([]);
  });

  it('with drain.method deregister, lets through an absent target a rollout left drained (repair registers it)', async () => {
    const base = testConfig();
    const config = { ...base, drain: { ...base.drain, method: 'deregister' as const } };
    const f = albFleet(undefined, { deregistrationDelay: 30_000 }, config);
    f.alb.unregistered.set('web-3', 'absent');
    f.host(3).drained = true;
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    expect(f.log.events.some((e) => e.event === 'repair' && e.host === 'web-3')).toBe(true);
  });

  it('with slow_start, drains the next wave only once the last host has ramped up', async () => {
    const f = albFleet(undefined, { slowStart: 20_000 });
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    const step = (host: number, name: string) =>
      result.hosts[host]!.steps.find((s) => s.step === name)!;
    for (const n of [1, 2]) {
      const back = step(n - 1, 'await-in');
      expect(step(n, 'drain').offset_ms).toBeGreaterThanOrEqual(
        back.offset_ms + back.duration_ms + 20_000,
      );
    }
    expect(f.log.events.filter((e) => e.event === 'slow-start')).toHaveLength(2);
  });

  it('an interrupt while slow start is waited out ends with the result, not a throw', async () => {
    const f = albFleet(undefined, { slowStart: 20_000 });
    const log: Log = {
      emit: (e) => {
        f.log.emit(e);
        if (e.event === 'slow-start') f.controller.abort(new Error('SIGINT'));
      },
    };
    const result = await rollout({ ...f.deps, log }, options);
    expect(result.ok).toBe(false);
    expect(result.hosts.map((h) => [h.host, h.result])).toEqual([['web-1', 'deployed']]);
    expect(result.notReached).toEqual(['web-2', 'web-3']);
    expect(f.actions(2)).toEqual([]);
  });
});
