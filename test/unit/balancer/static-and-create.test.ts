import { describe, expect, it } from 'vitest';
import { createBalancer } from '../../../src/balancer/create.js';
import { infraApply } from '../../../src/balancer/infra.js';
import { awaitRotation } from '../../../src/rollout/rotation.js';
import { StaticBalancer } from '../../../src/balancer/static/adapter.js';
import type { StaticBalancerConfig } from '../../../src/balancer/static/config/entry.js';
import { OperationError, UsageError } from '../../../src/errors.js';
import { oneBalancer, testConfig } from '../../support/config.js';
import { FakeClock } from '../../support/fake-clock.js';
import { MemoryLog } from '../../../src/log.js';

const deps = { clock: new FakeClock(), log: new MemoryLog() };

const healthCheck = { interval: 5_000, timeout: 2_000, unhealthyThreshold: 2, healthyThreshold: 3 };
const staticConfig: StaticBalancerConfig = { kind: 'static', healthCheck };

describe('the static balancer', () => {
  it('reports the settings written in deploy.yml', async () => {
    expect(await new StaticBalancer(staticConfig).settings()).toEqual(healthCheck);
  });

  it('cannot tell whether any target is in rotation', async () => {
    const states = await new StaticBalancer(staticConfig).states(['web-1', 'web-2']);
    expect([...states.values()]).toEqual([
      { target: 'web-1', state: 'unknown', inRotation: null },
      { target: 'web-2', state: 'unknown', inRotation: null },
    ]);
  });

  it('refuses to deregister, pointing at drain.method health', async () => {
    await expect(new StaticBalancer(staticConfig).deregister('web-1')).rejects.toThrow(
      new OperationError(
        "balancer.kind static has no API to deregister web-1: use drain.method health, so the host's health endpoint takes it out",
      ),
    );
    await expect(new StaticBalancer(staticConfig).register('web-1')).rejects.toBeInstanceOf(
      OperationError,
    );
  });

  it('is blind, alone or as a set: a rollout waits out the whole bound and asks it nothing', async () => {
    const set = await createBalancer(testConfig({ balancers: oneBalancer(staticConfig) }), deps);
    expect(set.blind).toBe(true);
    const clock = new FakeClock();
    const wait = await awaitRotation(
      set,
      'web-1',
      false,
      40_000,
      5_000,
      clock,
      new AbortController().signal,
    );
    expect(wait).toEqual({ met: true, elapsed: 40_000, last: undefined });
    expect(clock.sleeps).toEqual([40_000]);
    // one with an API is not
    const haproxy = await createBalancer(testConfig(), deps);
    expect(haproxy.blind).toBe(false);
    await haproxy.close();
  });

  it('has nothing for deploy infra apply to change', async () => {
    await expect(
      infraApply(testConfig({ balancers: oneBalancer(staticConfig) }), { dryRun: true }, deps),
    ).rejects.toBeInstanceOf(UsageError);
  });
});

describe('createBalancer', () => {
  it('picks the adapter of balancer.kind', async () => {
    const alb = testConfig({
      balancers: oneBalancer({
        kind: 'alb',
        targetGroupArn: 'arn:aws:elasticloadbalancing:x',
        region: 'eu-west-1',
      }),
    });
    const kinds = await Promise.all(
      [testConfig({ balancers: oneBalancer(staticConfig) }), testConfig(), alb].map(async (c) => {
        const balancer = await createBalancer(c, deps);
        await balancer.close();
        return balancer.kind;
      }),
    );
    expect(kinds).toEqual(['static', 'haproxy', 'alb']);
  });
});
