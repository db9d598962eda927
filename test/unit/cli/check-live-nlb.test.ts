import {
  DescribeTargetGroupAttributesCommand,
  DescribeTargetGroupsCommand,
  ElasticLoadBalancingV2Client,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { runCheck } from '../../../src/cli/check/check-command.js';
import type { Output } from '../../../src/cli/output.js';
import type { Config } from '../../../src/config/types.js';
import { testConfig } from '../../support/config.js';

const elb = mockClient(ElasticLoadBalancingV2Client);
const arn = 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/tcp/abc';
const nlbArn = 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/net/front/def';

afterEach(() => {
  elb.reset();
});

function textOutput() {
  const lines: string[] = [];
  const warnings: string[] = [];
  const out: Output = {
    json: false,
    emit: (e) => void (e.level === 'warn' && warnings.push(e.message)),
    text: (t) => void lines.push(...t.split('\n')),
    result: () => undefined,
    raw: () => undefined,
  };
  return { out, lines, warnings };
}

/** A TCP group behind a Network Load Balancer, as DescribeTargetGroups answers for one. */
function nlbGroup(HealthCheckProtocol: 'TCP' | 'HTTP', attributes: Record<string, string>) {
  elb.on(DescribeTargetGroupsCommand).resolves({
    TargetGroups: [
      {
        TargetGroupArn: arn,
        Protocol: 'TCP',
        Port: 8000,
        HealthCheckProtocol,
        HealthCheckIntervalSeconds: 10,
        HealthCheckTimeoutSeconds: 6,
        HealthyThresholdCount: 3,
        UnhealthyThresholdCount: 3,
        LoadBalancerArns: [nlbArn],
      },
    ],
  });
  elb.on(DescribeTargetGroupAttributesCommand).resolves({
    Attributes: Object.entries(attributes).map(([Key, Value]) => ({ Key, Value })),
  });
}

function nlbConfig(method: 'health' | 'deregister'): Config {
  const base = testConfig();
  return {
    ...base,
    balancers: [
      {
        kind: 'alb',
        name: 'nlb',
        targetGroupArn: arn,
        region: 'eu-west-1',
        type: 'network',
        targets: {},
      },
    ],
    drain: { method, answer: 503, overlap: 15_000, maxRequest: 30_000, stopTimeout: 60_000 },
    watchdog: { ...base.watchdog, every: 600_000 },
  };
}

const check = (config: Config, out: Output) =>
  runCheck(config, out, { live: true, strict: false, readLastStop: () => Promise.resolve(null) });

describe('deploy check --live on an NLB target group', () => {
  it('fails when connection termination would reset connections before the services have stopped', async () => {
    nlbGroup('HTTP', {
      'deregistration_delay.timeout_seconds': '60',
      'deregistration_delay.connection_termination.enabled': 'true',
    });
    const { out, lines } = textOutput();
    await expect(check(nlbConfig('deregister'), out)).rejects.toMatchObject({
      exitCode: 1,
      message: 'invariant connection-termination fails',
    });
    expect(lines.join('\n')).toContain(
      'connection termination on: overlap 15s + stop_timeout 1m = 1m15s > deregistration delay 1m',
    );
  });

  it('passes the same group once the delay holds the overlap and the stop', async () => {
    nlbGroup('HTTP', {
      'deregistration_delay.timeout_seconds': '75',
      'deregistration_delay.connection_termination.enabled': 'true',
    });
    const { out, lines, warnings } = textOutput();
    await expect(check(nlbConfig('deregister'), out)).resolves.toBeUndefined();
    expect(lines.join('\n')).toContain('≤ deregistration delay 1m15s: ok');
    expect(warnings).toEqual([]);
  });

  it('fails drain.method health behind the TCP health check an NLB has by default', async () => {
    nlbGroup('TCP', { 'deregistration_delay.timeout_seconds': '300' });
    await expect(check(nlbConfig('health'), textOutput().out)).rejects.toMatchObject({
      exitCode: 1,
      message: 'invariant check-protocol fails',
    });
  });

  it('reads the NLB group as the settings of the timeline: its health check and the attribute', async () => {
    nlbGroup('TCP', {
      'deregistration_delay.timeout_seconds': '300',
      'deregistration_delay.connection_termination.enabled': 'true',
    });
    const { out, lines } = textOutput();
    await expect(check(nlbConfig('deregister'), out)).resolves.toBeUndefined();
    const text = lines.join('\n');
    expect(text).toContain('health-check settings live from the alb balancer');
    expect(text).toContain('≤ deregistration delay 5m: ok');
  });

  it('fails drain.method health behind an HTTP check while the NLB resets an unhealthy target’s connections (AWS’s default), passes once it keeps them', async () => {
    nlbGroup('HTTP', {
      'deregistration_delay.timeout_seconds': '300',
      'target_health_state.unhealthy.connection_termination.enabled': 'true',
      'target_health_state.unhealthy.draining_interval_seconds': '0',
    });
    const refused = textOutput();
    await expect(check(nlbConfig('health'), refused.out)).rejects.toMatchObject({
      exitCode: 1,
      message: 'invariant unhealthy-termination fails',
    });
    expect(refused.lines.join('\n')).toContain(
      "unhealthy connection termination on: the NLB resets every connection to a host the moment the drain's 503 makes it unhealthy",
    );
    elb.reset();
    nlbGroup('HTTP', {
      'deregistration_delay.timeout_seconds': '300',
      'target_health_state.unhealthy.connection_termination.enabled': 'false',
      'target_health_state.unhealthy.draining_interval_seconds': '120',
    });
    const kept = textOutput();
    await expect(check(nlbConfig('health'), kept.out)).resolves.toBeUndefined();
    expect(kept.lines.join('\n')).toContain(
      "an unhealthy host's connections are kept 2m ≥ overlap + stop_timeout 1m15s: ok",
    );
  });
});
