import { readHaproxyCounters } from '../../../src/balancer/haproxy/receipt/read.js';
import type { HaproxyCounters } from '../../../src/balancer/haproxy/receipt/counters.js';
import { windowDelta } from '../../../src/evidence/kit/delta.js';
import { countsOf } from '../../../src/evidence/kit/counts.js';
import { METRICS, type MetricId } from '../../../src/balancer/alb/receipt/cloudwatch-queries.js';

/**
 * CloudWatch's GetMetricData for the lab's target group, answered from the
 * lab HAProxy's own counters: sampled once a second into running totals
 * (a server removed and re-added by ModifyTargetGroup restarts its
 * counters: what it counted since is added, so the totals only grow), and a
 * query for [start, end] is the growth between the samples at those times,
 * as one datapoint. Unlike CloudWatch there is no delay.
 */

type Totals = Record<MetricId, number>;
const zero = (): Totals => ({ requests: 0, target5xx: 0, connect: 0, elb5xx: 0 });

export class LabMetrics {
  private readonly samples: { at: number; totals: Totals }[] = [];
  private last: HaproxyCounters | undefined;
  private totals = zero();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly socket: string,
    private readonly backend: string,
  ) {
    this.timer = setInterval(() => void this.sample().catch(() => undefined), 1000);
    this.timer.unref();
  }

  /** one sample now: a query waits for it, so the latest traffic is in */
  async sample(): Promise<void> {
    const now = await readHaproxyCounters({ socket: this.socket, backend: this.backend });
    const before = this.last;
    this.last = now;
    if (before !== undefined) {
      const grow = (id: MetricId, n: number): void => void (this.totals[id] += n);
      for (const [name, end] of now.servers) {
        const start = before.servers.get(name) ?? { ...end, requests: 0, kinds: {} };
        const c = countsOf(windowDelta(start, end, name));
        grow('requests', c.requests);
        grow('target5xx', c.kinds?.http_5xx ?? 0);
        const broken = (c.kinds?.connect ?? 0) + (c.kinds?.response ?? 0);
        grow('connect', broken);
        grow('elb5xx', broken);
      }
      const own = countsOf(windowDelta(before.own, now.own, 'backend')).kinds ?? {};
      const ownBroken = (own.connect ?? 0) + (own.response ?? 0);
      grow('connect', ownBroken);
      // like an ALB: a failed connection to a target is answered 502 by the balancer
      grow('elb5xx', ownBroken + (own.no_server ?? 0));
    }
    this.samples.push({ at: Date.now(), totals: { ...this.totals } });
    if (this.samples.length > 3600) this.samples.shift();
  }

  private at(ms: number): Totals {
    let found = this.samples[0]?.totals ?? zero();
    for (const s of this.samples) if (s.at <= ms) found = s.totals;
    return found;
  }

  /**
   * GetMetricData, paginated as the CloudWatch API Reference has it
   * ("NextToken: Include this value, if it was returned by the previous
   * GetMetricData operation, to get the next set of data points"): one
   * query's result per page, so a client that reads only the first page
   * misses the rest.
   */
  async answer(body: string): Promise<Record<string, unknown>> {
    await this.sample();
    const input = JSON.parse(body) as {
      MetricDataQueries?: { Id?: string; MetricStat?: { Metric?: { MetricName?: string } } }[];
      StartTime?: number;
      EndTime?: number;
      NextToken?: string;
    };
    const start = (input.StartTime ?? 0) * 1000;
    const end = (input.EndTime ?? 0) * 1000;
    const from = this.at(start);
    const to = this.at(end);
    const byName = new Map<string, MetricId>(
      Object.entries(METRICS).map(([id, name]) => [name, id as MetricId]),
    );
    const queries = input.MetricDataQueries ?? [];
    const index = Number(input.NextToken ?? '0');
    const page = queries.slice(index, index + 1);
    return {
      MetricDataResults: page.map((q) => {
        const id = byName.get(q.MetricStat?.Metric?.MetricName ?? '');
        return {
          Id: q.Id,
          Label: q.MetricStat?.Metric?.MetricName,
          Timestamps: id ? [Math.floor(start / 1000)] : [],
          Values: id ? [to[id] - from[id]] : [],
          StatusCode: 'Complete',
        };
      }),
      ...(index + 1 < queries.length && { NextToken: String(index + 1) }),
      Messages: [],
    };
  }

  close(): void {
    clearInterval(this.timer);
  }
}
