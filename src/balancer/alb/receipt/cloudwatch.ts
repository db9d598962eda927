import type { CloudWatchClient, GetMetricDataCommandOutput } from '@aws-sdk/client-cloudwatch';
import type * as sdkTypes from '@aws-sdk/client-cloudwatch';
import type { Clock } from '../../../clock.js';
import { awsClientOptions } from '../../../aws/client-options.js';
import { cloudWatchError } from './cloudwatch-errors.js';
import type { Counts } from '../../../evidence/kit/counts.js';
import {
  countsFromSums,
  DELAY_MS,
  METRICS,
  metricQueries,
  minuteWindow,
  type MetricId,
} from './cloudwatch-queries.js';

/** An ALB target group as CloudWatch's metrics know it (AlbBalancer.metricsTarget). */
export interface MetricsTarget {
  readonly targetGroupArn: string;
  /** from DescribeTargetGroups: CloudWatch names the target group under its load balancer */
  readonly loadBalancerArn: string;
  readonly region?: string;
}

export interface AlbReceipt {
  readonly counts: Counts;
  /** CloudWatch's sums for the group; `elb5xx` is its load balancer's, shared by its groups */
  readonly sums: Readonly<Record<MetricId, number>>;
  readonly from: Date;
  readonly to: Date;
  /** false while CloudWatch may still add to the window's minutes */
  readonly final: boolean;
  /** one line: what the figures cover and how late they are */
  readonly note: string;
}

/**
 * The SDK is imported on demand, as the ELBv2 one is: the agent bundle never
 * carries it, and a rollout without an ALB never loads it. The endpoint comes
 * from the SDK's standard chain (AWS_ENDPOINT_URL_CLOUDWATCH in the lab).
 */
export async function createAlbMetrics(target: MetricsTarget, clock: Clock): Promise<AlbMetrics> {
  const sdk = await import('@aws-sdk/client-cloudwatch');
  const client = new sdk.CloudWatchClient(awsClientOptions(target.region));
  return new AlbMetrics(target, sdk, client, clock);
}

/** to the second, as `deploy receipt` takes it */
function iso(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

export class AlbMetrics {
  constructor(
    private readonly target: MetricsTarget,
    private readonly sdk: typeof sdkTypes,
    private readonly client: CloudWatchClient,
    private readonly clock: Clock,
  ) {}

  async receipt(from: number, to: number): Promise<AlbReceipt> {
    const { start, end } = minuteWindow(from, to);
    const sums: Record<MetricId, number> = { requests: 0, target5xx: 0, connect: 0, elb5xx: 0 };
    const ids = new Map((Object.keys(METRICS) as MetricId[]).map((id) => [id.toLowerCase(), id]));
    // per query, the status of its last page: PartialData followed by NextToken means "more to come"
    const status = new Map<string, string | undefined>();
    let token: string | undefined;
    do {
      let page: GetMetricDataCommandOutput;
      try {
        page = await this.client.send(
          new this.sdk.GetMetricDataCommand({
            MetricDataQueries: metricQueries(
              this.target.targetGroupArn,
              this.target.loadBalancerArn,
            ),
            StartTime: start,
            EndTime: end,
            ...(token !== undefined && { NextToken: token }),
          }),
        );
      } catch (error) {
        throw cloudWatchError(error, this.target.region);
      }
      for (const r of page.MetricDataResults ?? []) {
        const id = ids.get(r.Id ?? '');
        if (id !== undefined) sums[id] += (r.Values ?? []).reduce((s, v) => s + v, 0);
        status.set(r.Id ?? '', r.StatusCode);
      }
      token = page.NextToken;
    } while (token !== undefined);
    const partial = [...status.values()].includes('PartialData');
    const final = !partial && this.clock.now() - end.getTime() >= DELAY_MS;
    const span = `${start.toISOString().slice(11, 16)}–${end.toISOString().slice(11, 16)} UTC`;
    return {
      counts: countsFromSums(sums),
      sums,
      from: start,
      to: end,
      final,
      note: final
        ? `CloudWatch, whole minutes ${span}`
        : `CloudWatch, whole minutes ${span}; provisional: CloudWatch publishes 1–3 minutes late, run \`deploy receipt --from ${iso(start)} --to ${iso(end)}\` after ${new Date(end.getTime() + DELAY_MS).toISOString().slice(11, 16)} UTC for the final figures`,
    };
  }

  close(): void {
    this.client.destroy();
  }
}
