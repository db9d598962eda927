import {
  CloudWatchClient,
  CloudWatchServiceException,
  GetMetricDataCommand,
} from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Balancer } from '../../../src/balancer/balancer.js';
import {
  cloudWatchCounts,
  cloudWatchReceipt,
} from '../../../src/balancer/alb/receipt/cloudwatch-receipt.js';
import {
  createAlbMetrics,
  type MetricsTarget,
} from '../../../src/balancer/alb/receipt/cloudwatch.js';
import { BlockedError, OperationError, UsageError } from '../../../src/errors.js';
import { unreadExit } from '../../../src/evidence/kit/metrics-receipt.js';
import { receiptLine } from '../../../src/evidence/receipt.js';
import { BalancerSet } from '../../../src/balancer/set.js';
import { evidenceDeps } from '../../../src/evidence/create-source.js';
import { oneBalancer, testConfig } from '../../support/config.js';
import { FakeClock } from '../../support/fake-clock.js';

const cw = mockClient(CloudWatchClient);
afterEach(() => {
  cw.reset();
});
const at = (hhmmss: string) => Date.parse(`2026-01-01T${hhmmss}Z`);

/** an ALB of the run, as the receipt asks it: what CloudWatch names its target group by */
type Measured = Balancer & { metricsTarget(): Promise<MetricsTarget> };

function alb(group: string, loadBalancer = 'web'): Measured {
  const target: MetricsTarget = {
    targetGroupArn: `arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/${group}/1`,
    loadBalancerArn: `arn:aws:elasticloadbalancing:eu-west-1:1:loadbalancer/app/${loadBalancer}/2`,
    region: 'eu-west-1',
  };
  return { kind: 'alb', metricsTarget: () => Promise.resolve(target) } as unknown as Measured;
}
const haproxy = { kind: 'haproxy' } as unknown as Balancer;

describe("the rollout's receipt from CloudWatch", () => {
  it('sums every ALB target group, names them, and says it is provisional', async () => {
    cw.on(GetMetricDataCommand).resolves({
      MetricDataResults: [
        { Id: 'requests', Values: [1000], StatusCode: 'Complete' },
        { Id: 'target5xx', Values: [3], StatusCode: 'Complete' },
      ],
    });
    const groups = [
      { name: 'public', balancer: alb('public') },
      { name: 'internal', balancer: alb('internal') },
      { name: 'lb', balancer: haproxy },
    ];
    const clock = new FakeClock(at('10:06:00'));
    const r = await cloudWatchReceipt(groups, clock, at('10:02:30'), at('10:05:10'));
    expect(r).toMatchObject({
      source: 'CloudWatch public + internal',
      total: { requests: 2000, failed: 6 },
      window: { from: '2026-01-01T10:02:00.000Z', to: '2026-01-01T10:06:00.000Z' },
      final: false,
    });
    expect(receiptLine(r!)).toMatch(
      /^CloudWatch public \+ internal saw 6 failed of 2 000 requests during the rollout \(CloudWatch, whole minutes 10:02–10:06 UTC; provisional: .*deploy receipt --from 2026-01-01T10:02:00Z --to 2026-01-01T10:06:00Z.*\); not counted: lb \(haproxy\)$/,
    );
  });

  it("names a balancer it cannot count and never says 'in all' then (issue 34: an ALB and an HAProxy)", async () => {
    cw.on(GetMetricDataCommand).resolves({
      MetricDataResults: [
        { Id: 'requests', Values: [20_000], StatusCode: 'Complete' },
        { Id: 'target5xx', Values: [0], StatusCode: 'Complete' },
      ],
    });
    const groups = [
      { name: 'public', balancer: alb('public') },
      { name: 'internal', balancer: haproxy },
    ];
    const clock = new FakeClock(at('10:06:00'));
    const r = await cloudWatchReceipt(groups, clock, at('10:02:30'), at('10:05:10'));
    expect(r?.uncounted).toEqual(['internal (haproxy)']);
    const line = receiptLine(r!);
    expect(line).not.toContain('in all');
    expect(line).toMatch(
      /^CloudWatch public saw 0 failed of 20 000 requests during the rollout \(.*\); not counted: internal \(haproxy\)$/,
    );
  });

  it('says in all when every balancer is an ALB', async () => {
    cw.on(GetMetricDataCommand).resolves({
      MetricDataResults: [{ Id: 'requests', Values: [10], StatusCode: 'Complete' }],
    });
    const clock = new FakeClock(at('10:06:00'));
    const r = await cloudWatchReceipt(
      [{ name: 'public', balancer: alb('public') }],
      clock,
      at('10:02:30'),
      at('10:05:10'),
    );
    expect(r?.uncounted).toBeUndefined();
    expect(receiptLine(r!)).toMatch(/^CloudWatch public saw 0 failed of 10 requests in all/);
  });

  it("counts a load balancer's own 5xx once, however many of its target groups front the fleet", async () => {
    // each group's query carries its load balancer's 5xx: the same series twice for one ALB
    const group = (requests: number, connect: number) => ({
      MetricDataResults: [
        { Id: 'requests', Values: [requests], StatusCode: 'Complete' as const },
        { Id: 'target5xx', Values: [2], StatusCode: 'Complete' as const },
        { Id: 'connect', Values: [connect], StatusCode: 'Complete' as const },
        { Id: 'elb5xx', Values: [7], StatusCode: 'Complete' as const },
      ],
    });
    // public (1000 requests, 1 failed connection) then internal (500, 2), under these ALBs
    const receipt = async (publicLb: string, internalLb: string) => {
      cw.reset();
      cw.on(GetMetricDataCommand).resolvesOnce(group(1000, 1)).resolvesOnce(group(500, 2));
      const groups = [
        { name: 'public', balancer: alb('public', publicLb) },
        { name: 'internal', balancer: alb('internal', internalLb) },
      ];
      const r = await cloudWatchReceipt(
        groups,
        new FakeClock(at('10:20:00')),
        at('10:02:30'),
        at('10:05:10'),
      );
      return r?.total;
    };
    // 7 ELB 5xx: 3 of them the two groups' failed connections, 4 with no target chosen
    expect(await receipt('web', 'web')).toEqual({
      requests: 1504,
      failed: 11,
      kinds: { http_5xx: 4, connect: 3, no_server: 4 },
    });
    // two load balancers, each its own 7
    expect(await receipt('edge', 'inner')).toEqual({
      requests: 1511,
      failed: 18,
      kinds: { http_5xx: 4, connect: 3, no_server: 11 },
    });
  });

  it('a group that cannot be read makes it unread with the line, never a zero', async () => {
    cw.on(GetMetricDataCommand).rejects(
      new CloudWatchServiceException({
        name: 'AccessDenied',
        $fault: 'client',
        $metadata: {},
        message: 'no',
      }),
    );
    const r = await cloudWatchReceipt(
      [{ name: 'public', balancer: alb('public') }],
      new FakeClock(),
      0,
      60_000,
    );
    expect(r?.total.unread).toContain('cloudwatch:GetMetricData');
    expect(receiptLine(r!)).toMatch(
      /^CloudWatch public could not count the requests during the rollout \(CloudWatch GetMetricData: access denied/,
    );
  });

  it("warm loads each group's client and load balancer ahead, once; the receipt reads with them", async () => {
    cw.on(GetMetricDataCommand).resolves({
      MetricDataResults: [{ Id: 'requests', Values: [1000], StatusCode: 'Complete' }],
    });
    const asked: string[] = [];
    const balancer = alb('public');
    const counted = {
      ...balancer,
      metricsTarget: () => {
        asked.push('metricsTarget');
        return balancer.metricsTarget();
      },
    } as Balancer;
    const counts = cloudWatchCounts(
      () => {
        asked.push('groups');
        return Promise.resolve([{ name: 'public', balancer: counted }]);
      },
      new FakeClock(at('10:06:00')),
      (target, clock) => {
        asked.push('open');
        return createAlbMetrics(target, clock);
      },
    );
    counts.warm();
    counts.warm();
    await vi.waitFor(() => expect(asked).toEqual(['groups', 'metricsTarget', 'open']));
    expect(cw.commandCalls(GetMetricDataCommand)).toHaveLength(0);
    const r = await counts.receipt(at('10:02:30'), at('10:05:10'));
    expect(r?.total).toMatchObject({ requests: 1000, failed: 0 });
    expect(asked).toEqual(['groups', 'metricsTarget', 'open']);
    expect(cw.commandCalls(GetMetricDataCommand)).toHaveLength(1);
  });

  it('what fails while warming is said by the receipt (unread, its line), not at once', async () => {
    const denied = {
      kind: 'alb',
      metricsTarget: () =>
        Promise.reject(new BlockedError('ELBv2 DescribeTargetGroups: access denied (…)')),
    } as unknown as Balancer;
    const counts = cloudWatchCounts(
      () => Promise.resolve([{ name: 'public', balancer: denied }]),
      new FakeClock(),
    );
    counts.warm();
    const r = await counts.receipt(0, 60_000);
    expect(r?.total.unread).toBe('ELBv2 DescribeTargetGroups: access denied (…)');
    expect(r?.final).toBe(false);
  });

  it.each([
    [new UsageError('balancer.region: no AWS region: set balancer.region'), 2],
    [new BlockedError('ELBv2 DescribeTargetGroups: access denied (…)'), 3],
    [new OperationError('CloudWatch GetMetricData: throttled by AWS'), 1],
  ])(
    'an unread receipt stands for the exit code of what made it unread: %s',
    async (error, code) => {
      const failing = {
        kind: 'alb',
        metricsTarget: () => Promise.reject(error),
      } as unknown as Balancer;
      const r = await cloudWatchReceipt(
        [{ name: 'public', balancer: failing }],
        new FakeClock(),
        0,
        60_000,
      );
      expect(r?.total.unread).toBe(error.message);
      expect(unreadExit(r!)).toBe(code);
      // the error stays out of the receipt's JSON
      expect(JSON.stringify(r)).not.toContain('exitCode');
    },
  );

  it('no ALB: no receipt from CloudWatch', async () => {
    expect(
      await cloudWatchReceipt([{ name: 'lb', balancer: haproxy }], new FakeClock(), 0, 1),
    ).toBeUndefined();
  });
});

describe("the ALB kind's metrics receipt, asked through the registry", () => {
  const lb = { kind: 'haproxy' as const, socket: '/run/haproxy.sock', backend: 'be_api' };
  const arn = 'arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/public/1';
  const group = { kind: 'alb' as const, targetGroupArn: arn, region: 'eu-west-1' };

  it('reads each target group of the run by its deploy.yml name, and names the balancer beside it', async () => {
    cw.on(GetMetricDataCommand).resolves({
      MetricDataResults: [{ Id: 'requests', Values: [10], StatusCode: 'Complete' }],
    });
    const config = testConfig({
      balancers: [...oneBalancer(group, 'public'), ...oneBalancer(lb, 'internal')],
    });
    const run = new BalancerSet([
      { name: 'public', balancer: alb('public'), targets: new Map() },
      { name: 'internal', balancer: haproxy, targets: new Map() },
    ]);
    const clock = new FakeClock(at('10:06:00'));
    const evidence = await evidenceDeps(config, clock, undefined, () => Promise.resolve(run));
    expect(evidence.receipt).toBeUndefined();
    const r = await evidence.metrics?.receipt(at('10:02:30'), at('10:05:10'));
    expect(r).toMatchObject({
      source: 'CloudWatch public',
      total: { requests: 10, failed: 0 },
      uncounted: ['internal (haproxy)'],
    });
  });

  it('a single ALB is known by its deploy.yml name', async () => {
    cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
    const config = testConfig({ balancers: oneBalancer(group, 'edge') });
    const clock = new FakeClock(at('10:06:00'));
    const evidence = await evidenceDeps(config, clock, undefined, () =>
      Promise.resolve(alb('edge')),
    );
    const r = await evidence.metrics?.receipt(at('10:02:30'), at('10:05:10'));
    expect(r?.source).toBe('CloudWatch edge');
  });

  it('none when every balancer counts itself, nor without the run to read through', async () => {
    const counting = await evidenceDeps(testConfig(), new FakeClock(), undefined, () =>
      Promise.resolve(haproxy),
    );
    expect(counting.metrics).toBeUndefined();
    const alone = await evidenceDeps(
      testConfig({ balancers: oneBalancer(group) }),
      new FakeClock(),
    );
    expect(alone.metrics).toBeUndefined();
  });
});
