import {
  CloudWatchClient,
  CloudWatchServiceException,
  GetMetricDataCommand,
} from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { Balancer, MetricsTarget } from '../../../src/balancer/balancer.js';
import { cloudWatchReceipt } from '../../../src/evidence/cloudwatch-receipt.js';
import { receiptLine } from '../../../src/evidence/receipt.js';
import { FakeClock } from '../../support/fake-clock.js';

const cw = mockClient(CloudWatchClient);
afterEach(() => {
  cw.reset();
});
const at = (hhmmss: string) => Date.parse(`2026-01-01T${hhmmss}Z`);

function alb(group: string, loadBalancer = 'web'): Balancer {
  const target: MetricsTarget = {
    targetGroupArn: `arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/${group}/1`,
    loadBalancerArn: `arn:aws:elasticloadbalancing:eu-west-1:1:loadbalancer/app/${loadBalancer}/2`,
    region: 'eu-west-1',
  };
  return { kind: 'alb', metricsTarget: () => Promise.resolve(target) } as unknown as Balancer;
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
      /^CloudWatch public \+ internal saw 6 failed of 2 000 requests in all during the rollout \(CloudWatch, whole minutes 10:02–10:06 UTC; provisional: .*deploy receipt --from 2026-01-01T10:02:00Z --to 2026-01-01T10:06:00Z/,
    );
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

  it('no ALB: no receipt from CloudWatch', async () => {
    expect(
      await cloudWatchReceipt([{ name: 'lb', balancer: haproxy }], new FakeClock(), 0, 1),
    ).toBeUndefined();
  });
});
