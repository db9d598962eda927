import {
  DescribeTargetGroupAttributesCommand,
  DescribeTargetGroupsCommand,
  ElasticLoadBalancingV2Client,
  ElasticLoadBalancingV2ServiceException,
  ModifyTargetGroupAttributesCommand,
  ModifyTargetGroupCommand,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planAlbInfra } from '../../../src/balancer/alb/infra.js';
import { infraApply } from '../../../src/balancer/infra.js';
import type { HealthCheckSettings } from '../../../src/config/types.js';
import { BlockedError, ConfigError } from '../../../src/errors.js';
import { oneBalancer, testConfig } from '../../support/config.js';
import { FakeClock } from '../../support/fake-clock.js';
import { MemoryLog } from '../../../src/log.js';

const deps = { clock: new FakeClock(), log: new MemoryLog() };

const elb = mockClient(ElasticLoadBalancingV2Client);
const arn = 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/api/abc';

const live: HealthCheckSettings = {
  interval: 30_000,
  timeout: 5_000,
  unhealthyThreshold: 2,
  healthyThreshold: 5,
  deregistrationDelay: 300_000,
  slowStart: 0,
};
const desired: HealthCheckSettings = {
  interval: 5_000,
  timeout: 2_000,
  unhealthyThreshold: 2,
  healthyThreshold: 2,
  deregistrationDelay: 30_000,
};

function albConfig(healthCheck: HealthCheckSettings | undefined = desired) {
  return testConfig({
    balancers: oneBalancer({
      kind: 'alb',
      targetGroupArn: arn,
      region: 'eu-west-1',
      ...(healthCheck ? { healthCheck } : {}),
    }),
  });
}

beforeEach(() => {
  elb.on(DescribeTargetGroupsCommand).resolves({
    TargetGroups: [
      {
        TargetGroupArn: arn,
        HealthCheckIntervalSeconds: 30,
        HealthCheckTimeoutSeconds: 5,
        UnhealthyThresholdCount: 2,
        HealthyThresholdCount: 5,
        LoadBalancerArns: [],
      },
    ],
  });
  elb.on(DescribeTargetGroupAttributesCommand).resolves({
    Attributes: [
      { Key: 'deregistration_delay.timeout_seconds', Value: '300' },
      { Key: 'slow_start.duration_seconds', Value: '0' },
    ],
  });
  elb.on(ModifyTargetGroupCommand).resolves({});
  elb.on(ModifyTargetGroupAttributesCommand).resolves({});
});
/** The error a promise rejects with; a promise that resolves fails the test. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as Error,
  );
}

afterEach(() => {
  elb.reset();
});

describe('planAlbInfra on an NLB group (no slow start attribute)', () => {
  it('sends no slow_start.duration_seconds for slow_start 0: AWS refuses the attribute on an NLB, and its absence is 0', () => {
    const { slowStart: _none, ...nlb } = live;
    const plan = planAlbInfra(nlb, { ...desired, slowStart: 0 });
    expect(plan.attributes.map((a) => a.Key)).toEqual(['deregistration_delay.timeout_seconds']);
    expect(plan.changes.map((c) => c.setting)).not.toContain('slowStart');
  });
});

describe('the ALB infra plan', () => {
  it('lists each setting deploy.yml names and AWS has otherwise, and the calls that fix them', () => {
    expect(planAlbInfra(live, desired)).toEqual({
      changes: [
        { setting: 'interval', current: 30_000, desired: 5_000, action: 'apply' },
        { setting: 'timeout', current: 5_000, desired: 2_000, action: 'apply' },
        { setting: 'healthyThreshold', current: 5, desired: 2, action: 'apply' },
        { setting: 'deregistrationDelay', current: 300_000, desired: 30_000, action: 'apply' },
      ],
      targetGroup: {
        HealthCheckIntervalSeconds: 5,
        HealthCheckTimeoutSeconds: 2,
        HealthyThresholdCount: 2,
      },
      attributes: [{ Key: 'deregistration_delay.timeout_seconds', Value: '30' }],
    });
  });

  it('reports a different idle timeout without changing the shared load balancer', () => {
    const plan = planAlbInfra({ ...live, idleTimeout: 60_000 }, { ...live, idleTimeout: 30_000 });
    expect(plan.changes).toEqual([
      { setting: 'idleTimeout', current: 60_000, desired: 30_000, action: 'manual' },
    ]);
    expect(plan.targetGroup).toEqual({});
    expect(plan.attributes).toEqual([]);
  });

  it('refuses durations that are not whole seconds instead of rounding them', () => {
    expect(() => planAlbInfra(live, { ...desired, interval: 5_500 })).toThrow(
      new ConfigError([
        { path: 'balancer.interval', message: 'ALB takes whole seconds, got 5500 ms' },
      ]),
    );
  });
});

describe('deploy infra apply on an ALB', () => {
  it('modifies the target group and its attributes to match deploy.yml', async () => {
    const [result] = await infraApply(albConfig(), { dryRun: false }, deps);
    expect(result).toMatchObject({ name: 'alb', kind: 'alb', applied: true });
    expect(elb.commandCalls(ModifyTargetGroupCommand).map((c) => c.args[0].input)).toEqual([
      {
        TargetGroupArn: arn,
        HealthCheckIntervalSeconds: 5,
        HealthCheckTimeoutSeconds: 2,
        HealthyThresholdCount: 2,
      },
    ]);
    expect(
      elb.commandCalls(ModifyTargetGroupAttributesCommand).map((c) => c.args[0].input),
    ).toEqual([
      {
        TargetGroupArn: arn,
        Attributes: [{ Key: 'deregistration_delay.timeout_seconds', Value: '30' }],
      },
    ]);
  });

  it('in a dry run reads the settings and changes nothing', async () => {
    const [result] = await infraApply(albConfig(), { dryRun: true }, deps);
    expect(result?.applied).toBe(false);
    expect(result?.changes).toHaveLength(4);
    expect(elb.commandCalls(DescribeTargetGroupsCommand)).toHaveLength(1);
    expect(elb.commandCalls(ModifyTargetGroupCommand)).toHaveLength(0);
    expect(elb.commandCalls(ModifyTargetGroupAttributesCommand)).toHaveLength(0);
  });

  it('makes no call when everything already matches', async () => {
    const [result] = await infraApply(
      albConfig({ ...live, deregistrationDelay: 300_000 }),
      { dryRun: false },
      deps,
    );
    expect(result).toEqual({ name: 'alb', kind: 'alb', changes: [], applied: false });
    expect(elb.commandCalls(ModifyTargetGroupCommand)).toHaveLength(0);
  });

  it('blocks with one line when AWS denies the change', async () => {
    elb.on(ModifyTargetGroupCommand).rejects(
      new ElasticLoadBalancingV2ServiceException({
        name: 'AccessDenied',
        message: 'not authorized to perform: elasticloadbalancing:ModifyTargetGroup',
        $fault: 'client',
        $metadata: {},
      }),
    );
    const error = await rejection(infraApply(albConfig(), { dryRun: false }, deps));
    expect(error).toBeInstanceOf(BlockedError);
    expect(error.message).toBe(
      'ALB changing the health check: access denied: the credentials lack the IAM permission elasticloadbalancing:ModifyTargetGroup (docs/balancers.md lists all of them)',
    );
  });

  it('needs the desired settings in deploy.yml', async () => {
    await expect(infraApply(albConfig(null as never), { dryRun: true }, deps)).rejects.toThrow(
      /^balancer: deploy infra apply needs the desired settings/,
    );
  });
});
