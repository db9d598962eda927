import {
  DeregisterTargetsCommand,
  DescribeLoadBalancerAttributesCommand,
  DescribeTargetGroupAttributesCommand,
  DescribeTargetGroupsCommand,
  DescribeTargetHealthCommand,
  ElasticLoadBalancingV2Client,
  ElasticLoadBalancingV2ServiceException,
  RegisterTargetsCommand,
  TargetGroupNotFoundException,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAlbBalancer } from '../../../src/balancer/alb/adapter.js';
import type { AlbBalancerConfig } from '../../../src/balancer/alb/config/entry.js';
import { BlockedError, ConfigError } from '../../../src/errors.js';
import { FakeClock } from '../../support/fake-clock.js';
import { MemoryLog } from '../../../src/log.js';

const deps = { clock: new FakeClock(), log: new MemoryLog() };

const elb = mockClient(ElasticLoadBalancingV2Client);
const arn = 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/api/abc';
const lbArn = 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/front/def';
const config: AlbBalancerConfig = { kind: 'alb', targetGroupArn: arn, region: 'eu-west-1' };

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

/** Every group here listens on port 80 unless a test says otherwise. */
beforeEach(() => {
  elb
    .on(DescribeTargetGroupsCommand)
    .resolves({ TargetGroups: [{ TargetGroupArn: arn, Port: 80 }] });
});

function health(
  id: string,
  State: string,
  extra: { Reason?: string; Description?: string; Port?: number } = {},
) {
  const { Port = 80, ...why } = extra;
  return { Target: { Id: id, Port }, TargetHealth: { State, ...why } } as never;
}

function awsError(name: string, message = name): Error {
  return new ElasticLoadBalancingV2ServiceException({
    name,
    message,
    $fault: 'client',
    $metadata: {},
  });
}

describe('the ALB balancer, target states', () => {
  async function statesOf(descriptions: unknown[], targets: string[]) {
    elb
      .on(DescribeTargetHealthCommand)
      .resolves({ TargetHealthDescriptions: descriptions as never });
    const alb = await createAlbBalancer(config, deps);
    return [...(await alb.states(targets)).values()];
  }

  it('puts only healthy targets in rotation', async () => {
    const states = await statesOf(
      [
        health('i-healthy', 'healthy'),
        health('i-initial', 'initial', { Reason: 'Elb.RegistrationInProgress' }),
        health('i-unhealthy', 'unhealthy', {
          Reason: 'Target.ResponseCodeMismatch',
          Description: 'Health checks failed with these codes: [503]',
        }),
        health('i-draining', 'draining', { Reason: 'Target.DeregistrationInProgress' }),
        health('i-unavailable', 'unavailable', { Reason: 'Target.HealthCheckDisabled' }),
        health('i-unused', 'unused', { Reason: 'Target.InvalidState' }),
      ],
      ['i-healthy', 'i-initial', 'i-unhealthy', 'i-draining', 'i-unavailable', 'i-unused'],
    );
    expect(states.map((s) => [s.target, s.state, s.inRotation])).toEqual([
      ['i-healthy', 'healthy', true],
      ['i-initial', 'initial', false],
      ['i-unhealthy', 'unhealthy', false],
      ['i-draining', 'draining', false],
      ['i-unavailable', 'unavailable', false],
      ['i-unused', 'unused', false],
    ]);
  });

  it('gives the reason and description AWS gave', async () => {
    const [state] = await statesOf(
      [
        health('i-1', 'unhealthy', {
          Reason: 'Target.ResponseCodeMismatch',
          Description: 'Health checks failed with these codes: [503]',
        }),
      ],
      ['i-1'],
    );
    expect(state?.reason).toBe(
      'Target.ResponseCodeMismatch: Health checks failed with these codes: [503]',
    );
  });

  it('reads every registered target and reports one it does not list as unused', async () => {
    const states = await statesOf([health('10.0.1.11', 'healthy')], ['10.0.1.12']);
    expect(elb.commandCalls(DescribeTargetHealthCommand)[0]?.args[0].input).toEqual({
      TargetGroupArn: arn,
    });
    expect(states).toEqual([
      {
        target: '10.0.1.12',
        state: 'unused',
        inRotation: false,
        reason: 'not registered in the target group',
        unregistered: 'absent',
      },
    ]);
  });

  it('tells a target registered only on another port from one that is absent', async () => {
    const states = await statesOf(
      [health('10.0.1.11', 'healthy', { Port: 8000 })],
      ['10.0.1.11:9000'],
    );
    expect(states).toEqual([
      {
        target: '10.0.1.11:9000',
        state: 'unused',
        inRotation: false,
        reason: 'registered on port 8000, not 9000',
        unregistered: 'other-port',
      },
    ]);
  });

  it('reports an instance written without a port and registered on another port as other-port, naming the fix', async () => {
    const [state] = await statesOf([health('i-1', 'healthy', { Port: 9000 })], ['i-1']);
    expect(state).toEqual({
      target: 'i-1',
      state: 'unused',
      inRotation: false,
      unregistered: 'other-port',
      reason:
        "registered on port 9000 (the group's port is 80): write the port in hosts[].target, e.g. i-1:9000",
    });
  });

  it("flags a target without a port also registered beside the group's port, keeping its state", async () => {
    const [state] = await statesOf(
      [health('i-1', 'healthy', { Port: 80 }), health('i-1', 'healthy', { Port: 9000 })],
      ['i-1'],
    );
    expect([state?.state, state?.inRotation, state?.unregistered]).toEqual([
      'healthy',
      true,
      'other-port',
    ]);
  });

  it('matches a target written with a port only on that port', async () => {
    const states = await statesOf(
      [health('i-1', 'healthy', { Port: 80 }), health('i-1', 'draining', { Port: 8080 })],
      ['i-1:8080', 'i-1'],
    );
    expect(states.map((s) => [s.target, s.state])).toEqual([
      ['i-1:8080', 'draining'],
      ['i-1', 'healthy'],
    ]);
  });
});

describe('the ALB balancer, settings', () => {
  function describeGroup(loadBalancers: string[]) {
    elb.on(DescribeTargetGroupsCommand, { TargetGroupArns: [arn] }).resolves({
      TargetGroups: [
        {
          TargetGroupArn: arn,
          HealthCheckIntervalSeconds: 10,
          HealthCheckTimeoutSeconds: 4,
          UnhealthyThresholdCount: 3,
          HealthyThresholdCount: 2,
          LoadBalancerArns: loadBalancers,
        },
      ],
    });
    elb.on(DescribeTargetGroupAttributesCommand, { TargetGroupArn: arn }).resolves({
      Attributes: [
        { Key: 'deregistration_delay.timeout_seconds', Value: '30' },
        { Key: 'slow_start.duration_seconds', Value: '0' },
        { Key: 'stickiness.enabled', Value: 'false' },
      ],
    });
  }

  it('reads the health check, the group attributes and the idle timeout of its load balancer', async () => {
    describeGroup([lbArn]);
    elb.on(DescribeLoadBalancerAttributesCommand, { LoadBalancerArn: lbArn }).resolves({
      Attributes: [{ Key: 'idle_timeout.timeout_seconds', Value: '60' }],
    });
    const alb = await createAlbBalancer(config, deps);
    expect(await alb.settings()).toEqual({
      interval: 10_000,
      timeout: 4_000,
      unhealthyThreshold: 3,
      healthyThreshold: 2,
      deregistrationDelay: 30_000,
      slowStart: 0,
      idleTimeout: 60_000,
    });
  });

  it('leaves the idle timeout unknown for a group no load balancer uses yet', async () => {
    describeGroup([]);
    const settings = await (await createAlbBalancer(config, deps)).settings();
    expect(settings.idleTimeout).toBeUndefined();
    expect(elb.commandCalls(DescribeLoadBalancerAttributesCommand)).toHaveLength(0);
  });
});

describe('the NLB target group, settings', () => {
  it('reads connection termination and the health-check protocol (TargetGroupAttribute, CreateTargetGroup)', async () => {
    elb.on(DescribeTargetGroupsCommand, { TargetGroupArns: [arn] }).resolves({
      TargetGroups: [
        {
          TargetGroupArn: arn,
          Protocol: 'TCP',
          HealthCheckProtocol: 'TCP',
          HealthCheckIntervalSeconds: 30,
          HealthCheckTimeoutSeconds: 10,
          UnhealthyThresholdCount: 2,
          HealthyThresholdCount: 5,
          LoadBalancerArns: [],
        },
      ],
    });
    elb.on(DescribeTargetGroupAttributesCommand, { TargetGroupArn: arn }).resolves({
      Attributes: [
        { Key: 'deregistration_delay.timeout_seconds', Value: '300' },
        { Key: 'deregistration_delay.connection_termination.enabled', Value: 'true' },
      ],
    });
    expect(await (await createAlbBalancer(config, deps)).settings()).toEqual({
      interval: 30_000,
      timeout: 10_000,
      unhealthyThreshold: 2,
      healthyThreshold: 5,
      deregistrationDelay: 300_000,
      connectionTermination: true,
      checkProtocol: 'TCP',
    });
  });

  it('leaves connection termination out when the attribute is false', async () => {
    elb.on(DescribeTargetGroupsCommand, { TargetGroupArns: [arn] }).resolves({
      TargetGroups: [{ TargetGroupArn: arn, Protocol: 'TCP', HealthCheckProtocol: 'HTTP' }],
    });
    elb.on(DescribeTargetGroupAttributesCommand, { TargetGroupArn: arn }).resolves({
      Attributes: [{ Key: 'deregistration_delay.connection_termination.enabled', Value: 'false' }],
    });
    const settings = await (await createAlbBalancer(config, deps)).settings();
    expect(settings.connectionTermination).toBeUndefined();
    expect(settings.checkProtocol).toBe('HTTP');
  });
});

describe('the ALB balancer, registration keyed by (Id, Port)', () => {
  it("deregisters an instance written without a port on the group's port", async () => {
    elb.on(DeregisterTargetsCommand).resolves({});
    await (await createAlbBalancer(config, deps)).deregister('i-0abc123');
    expect(elb.commandCalls(DeregisterTargetsCommand)[0]?.args[0].input).toEqual({
      TargetGroupArn: arn,
      Targets: [{ Id: 'i-0abc123', Port: 80 }],
    });
  });

  it('deregisters and registers a target on its port override, never the group port', async () => {
    elb.on(DeregisterTargetsCommand).resolves({});
    elb.on(RegisterTargetsCommand).resolves({});
    const alb = await createAlbBalancer(config, deps);
    await alb.deregister('10.0.1.11:9000');
    await alb.register('10.0.1.11:9000');
    const sent = [
      ...elb.commandCalls(DeregisterTargetsCommand),
      ...elb.commandCalls(RegisterTargetsCommand),
    ].map((c) => c.args[0].input.Targets);
    expect(sent).toEqual([[{ Id: '10.0.1.11', Port: 9000 }], [{ Id: '10.0.1.11', Port: 9000 }]]);
  });

  it('reads the group port once for the whole run', async () => {
    elb.on(RegisterTargetsCommand).resolves({});
    const alb = await createAlbBalancer(config, deps);
    await alb.register('i-1');
    await alb.register('i-2');
    expect(elb.commandCalls(DescribeTargetGroupsCommand)).toHaveLength(1);
  });

  it('leaves the port out for a group that has none (a Lambda target)', async () => {
    elb.on(DescribeTargetGroupsCommand).resolves({ TargetGroups: [{ TargetGroupArn: arn }] });
    elb.on(RegisterTargetsCommand).resolves({});
    await (await createAlbBalancer(config, deps)).register('fn');
    expect(elb.commandCalls(RegisterTargetsCommand)[0]?.args[0].input.Targets).toEqual([
      { Id: 'fn' },
    ]);
  });
});

describe('the ALB balancer, proving RegisterTargets', () => {
  it('registers the healthy target again, as it is registered', async () => {
    elb
      .on(DescribeTargetHealthCommand)
      .resolves({ TargetHealthDescriptions: [health('10.0.1.11', 'healthy', { Port: 8080 })] });
    elb.on(RegisterTargetsCommand).resolves({});
    await (await createAlbBalancer(config, deps)).proveRegister('10.0.1.11:8080');
    expect(elb.commandCalls(RegisterTargetsCommand)[0]?.args[0].input).toEqual({
      TargetGroupArn: arn,
      Targets: [{ Id: '10.0.1.11', Port: 8080 }],
    });
  });

  it('adds no registration that was not there', async () => {
    elb
      .on(DescribeTargetHealthCommand)
      .resolves({ TargetHealthDescriptions: [health('i-1', 'healthy', { Port: 9000 })] });
    elb.on(RegisterTargetsCommand).resolves({});
    await (await createAlbBalancer(config, deps)).proveRegister('i-1');
    expect(elb.commandCalls(RegisterTargetsCommand)).toHaveLength(0);
  });

  it('blocks on access denied naming elasticloadbalancing:RegisterTargets and what it tried', async () => {
    elb
      .on(DescribeTargetHealthCommand)
      .resolves({ TargetHealthDescriptions: [health('i-0abc123', 'healthy')] });
    elb.on(RegisterTargetsCommand).rejects(awsError('AccessDenied'));
    const alb = await createAlbBalancer(config, deps);
    const error = await rejection(alb.proveRegister('i-0abc123'));
    expect(error).toBeInstanceOf(BlockedError);
    expect(error.message).toBe(
      'ALB checking RegisterTargets with i-0abc123, registered and healthy already (no change): access denied: the credentials lack the IAM permission elasticloadbalancing:RegisterTargets (docs/balancers.md lists all of them)',
    );
  });
});

describe('the ALB balancer, when AWS refuses', () => {
  const fails = async (error: Error): Promise<Error> => {
    elb.on(DescribeTargetHealthCommand).rejects(error);
    const alb = await createAlbBalancer(config, deps);
    return rejection(alb.states(['i-1']));
  };

  it('blocks on access denied, naming the IAM permission of the call', async () => {
    const error = await fails(
      awsError(
        'AccessDenied',
        'User: arn:aws:iam::123:user/ci is not authorized to perform: elasticloadbalancing:DescribeTargetHealth',
      ),
    );
    expect(error).toBeInstanceOf(BlockedError);
    expect(error.message).toBe(
      'ALB reading target health: access denied: the credentials lack the IAM permission elasticloadbalancing:DescribeTargetHealth (docs/balancers.md lists all of them)',
    );
  });

  it('is a config error naming the ARN when the target group does not exist', async () => {
    const error = await fails(
      new TargetGroupNotFoundException({
        message: 'One or more target groups not found',
        $metadata: {},
      }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      `balancer.target_group_arn: no such target group in eu-west-1 (${arn}): check the ARN and balancer.region`,
    );
  });

  it('blocks with where to put credentials when there are none', async () => {
    const noCredentials = Object.assign(
      new Error('Could not load credentials from any providers'),
      {
        name: 'CredentialsProviderError',
      },
    );
    const error = await fails(noCredentials);
    expect(error).toBeInstanceOf(BlockedError);
    expect(error.message).toBe(
      'ALB reading target health: no AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or run on a role',
    );
  });

  it('is a config error on balancer.region when neither deploy.yml nor the SDK has a region', async () => {
    const error = await fails(new Error('Region is missing'));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'balancer.region: no AWS region: set balancer.region, AWS_REGION, or a region in the AWS profile',
    );
  });

  it('keeps an unexpected AWS message to its first line', async () => {
    const error = await fails(awsError('InternalFailure', 'something broke\nwith details'));
    expect(error.message).toBe('ALB reading target health: InternalFailure: something broke');
  });
});

describe('the type of load balancer a group serves, from its protocol', () => {
  it.each([
    ['HTTP', 'application'],
    ['HTTPS', 'application'],
    ['TCP', 'network'],
    ['TLS', 'network'],
    ['UDP', 'network'],
    ['TCP_UDP', 'network'],
    ['GENEVE', undefined],
  ] as const)('%s: %s', async (Protocol, type) => {
    elb
      .on(DescribeTargetGroupsCommand)
      .resolves({ TargetGroups: [{ TargetGroupArn: arn, Port: 80, Protocol }] });
    const balancer = await createAlbBalancer(config, deps);
    expect(await balancer.loadBalancerType()).toBe(type);
  });
});
