import {
  CloudWatchClient,
  CloudWatchServiceException,
  GetMetricDataCommand,
} from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { createAlbMetrics } from '../../../src/balancer/alb/receipt/cloudwatch.js';
import { dimensionOf } from '../../../src/balancer/alb/receipt/cloudwatch-queries.js';
import { BlockedError, OperationError } from '../../../src/errors.js';
import { FakeClock } from '../../support/fake-clock.js';

const cw = mockClient(CloudWatchClient);
const target = {
  targetGroupArn:
    'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/api/73e2d6bc24d8a067',
  loadBalancerArn:
    'arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/web/50dc6c495c0c9188',
  region: 'eu-west-1',
};
const at = (hhmmss: string) => Date.parse(`2026-01-01T${hhmmss}Z`);

afterEach(() => {
  cw.reset();
});

function awsError(name: string, message = name): CloudWatchServiceException {
  return new CloudWatchServiceException({ name, $fault: 'client', $metadata: {}, message });
}

describe('the ALB receipt from CloudWatch', () => {
  it('asks for the four metrics over whole minutes and sums every page', async () => {
    cw.on(GetMetricDataCommand)
      .resolvesOnce({
        MetricDataResults: [
          { Id: 'requests', Values: [4000, 5000], StatusCode: 'Complete' },
          { Id: 'target5xx', Values: [2, 1], StatusCode: 'Complete' },
        ],
        NextToken: 'page-2',
      })
      .resolvesOnce({
        MetricDataResults: [
          { Id: 'connect', Values: [3], StatusCode: 'Complete' },
          { Id: 'elb5xx', Values: [4], StatusCode: 'Complete' },
        ],
      });
    const clock = new FakeClock(at('10:20:00'));
    const metrics = await createAlbMetrics(target, clock);
    const r = await metrics.receipt(at('10:02:30'), at('10:09:10'));
    // 3 of the ALB's 4 own 5xx are the failed connections; 1 had no target
    expect(r.counts).toEqual({
      requests: 9001,
      failed: 7,
      kinds: { http_5xx: 3, connect: 3, no_server: 1 },
    });
    expect(r.from.toISOString()).toBe('2026-01-01T10:02:00.000Z');
    expect(r.to.toISOString()).toBe('2026-01-01T10:10:00.000Z');
    expect(r.final).toBe(true);
    expect(r.note).toBe('CloudWatch, whole minutes 10:02–10:10 UTC');
    const calls = cw.commandCalls(GetMetricDataCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.args[0].input.NextToken).toBe('page-2');
    const queries = calls[0]?.args[0].input.MetricDataQueries ?? [];
    expect(queries.map((q) => q.MetricStat?.Metric?.MetricName)).toEqual([
      'RequestCount',
      'HTTPCode_Target_5XX_Count',
      'TargetConnectionErrorCount',
      'HTTPCode_ELB_5XX_Count',
    ]);
    expect(queries[0]?.MetricStat?.Metric?.Dimensions).toEqual([
      { Name: 'LoadBalancer', Value: 'app/web/50dc6c495c0c9188' },
      { Name: 'TargetGroup', Value: 'targetgroup/api/73e2d6bc24d8a067' },
    ]);
    expect(queries[3]?.MetricStat?.Metric?.Dimensions).toEqual([
      { Name: 'LoadBalancer', Value: 'app/web/50dc6c495c0c9188' },
    ]);
    expect(queries[0]?.MetricStat).toMatchObject({ Period: 60, Stat: 'Sum' });
  });

  it("charges a group with no request of its own none of its shared load balancer's 5xx", async () => {
    cw.on(GetMetricDataCommand).resolves({
      MetricDataResults: [
        { Id: 'requests', Values: [], StatusCode: 'Complete' },
        { Id: 'elb5xx', Values: [60], StatusCode: 'Complete' },
      ],
    });
    const metrics = await createAlbMetrics(target, new FakeClock(at('10:20:00')));
    const r = await metrics.receipt(at('10:02:30'), at('10:09:10'));
    expect(r.counts).toEqual({
      requests: 0,
      failed: 0,
      kinds: { http_5xx: 0, connect: 0, no_server: 0 },
    });
  });

  it('says the figures are provisional while CloudWatch may still add to them', async () => {
    cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
    const metrics = await createAlbMetrics(target, new FakeClock(at('10:11:00')));
    const r = await metrics.receipt(at('10:02:30'), at('10:09:10'));
    expect(r.final).toBe(false);
    expect(r.note).toBe(
      'CloudWatch, whole minutes 10:02–10:10 UTC; provisional: CloudWatch publishes 1–3 minutes late, run `deploy receipt --from 2026-01-01T10:02:00Z --to 2026-01-01T10:10:00Z` after 10:13 UTC for the final figures',
    );
  });

  it('takes PartialData as provisional however late it is asked', async () => {
    cw.on(GetMetricDataCommand).resolves({
      MetricDataResults: [{ Id: 'requests', Values: [1], StatusCode: 'PartialData' }],
    });
    const metrics = await createAlbMetrics(target, new FakeClock(at('12:00:00')));
    expect((await metrics.receipt(at('10:02:30'), at('10:09:10'))).final).toBe(false);
  });

  it('takes PartialData followed by the rest on the next page as complete', async () => {
    cw.on(GetMetricDataCommand)
      .resolvesOnce({
        MetricDataResults: [{ Id: 'requests', Values: [1], StatusCode: 'PartialData' }],
        NextToken: 'more',
      })
      .resolvesOnce({
        MetricDataResults: [{ Id: 'requests', Values: [2], StatusCode: 'Complete' }],
      });
    const metrics = await createAlbMetrics(target, new FakeClock(at('12:00:00')));
    const r = await metrics.receipt(at('10:02:30'), at('10:09:10'));
    expect(r.final).toBe(true);
    expect(r.counts.requests).toBe(3);
  });

  it('names the IAM action when access is denied (exit 3)', async () => {
    cw.on(GetMetricDataCommand).rejects(awsError('AccessDenied', 'User: x is not authorized'));
    const metrics = await createAlbMetrics(target, new FakeClock());
    const error = await metrics.receipt(0, 60_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlockedError);
    expect((error as Error).message).toBe(
      'CloudWatch GetMetricData: access denied: the credentials lack the IAM permission cloudwatch:GetMetricData (docs/balancers.md lists all of them)',
    );
  });

  it('reports throttling as an operation error, which a bake retries', async () => {
    cw.on(GetMetricDataCommand).rejects(awsError('ThrottlingException', 'Rate exceeded'));
    const metrics = await createAlbMetrics(target, new FakeClock());
    const error = await metrics.receipt(0, 60_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationError);
    expect((error as Error).message).toBe(
      'CloudWatch GetMetricData: throttled by AWS (ThrottlingException): retried within the bake',
    );
  });

  it('says an answer in another format came from something else, not a SyntaxError', async () => {
    const parse = new SyntaxError('Unexpected token \'<\', "<?xml vers"... is not valid JSON');
    Object.defineProperty(parse, '$responseBodyText', {
      value:
        '<?xml version="1.0"?>\n<ErrorResponse><Error><Code>Bad</Code></Error></ErrorResponse>',
    });
    cw.on(GetMetricDataCommand).rejects(parse);
    const metrics = await createAlbMetrics(target, new FakeClock());
    const error = await metrics.receipt(0, 60_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationError);
    expect((error as Error).message).toBe(
      'CloudWatch GetMetricData: the endpoint answered with a body that is not CloudWatch\'s (it begins "<?xml version=\\"1.0\\"?> <ErrorResponse><Error><Code>Bad</Code>"): a proxy or another service answered in its place; check AWS_ENDPOINT_URL_CLOUDWATCH, AWS_ENDPOINT_URL and any proxy',
    );
  });

  it('keeps an unknown failure to one line with its name', async () => {
    cw.on(GetMetricDataCommand).rejects(awsError('InvalidParameterValue', 'bad\nsecond line'));
    const metrics = await createAlbMetrics(target, new FakeClock());
    await expect(metrics.receipt(0, 60_000)).rejects.toThrow(
      /^CloudWatch GetMetricData: InvalidParameterValue: bad$/,
    );
  });
});

describe('dimensionOf', () => {
  it('takes the resource part CloudWatch names', () => {
    expect(dimensionOf(target.targetGroupArn, 'targetgroup')).toBe(
      'targetgroup/api/73e2d6bc24d8a067',
    );
    expect(dimensionOf(target.loadBalancerArn, 'loadbalancer')).toBe('app/web/50dc6c495c0c9188');
  });
});
