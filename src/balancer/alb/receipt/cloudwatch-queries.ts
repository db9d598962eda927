import type { MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import type { Counts } from '../../../evidence/kit/counts.js';

/**
 * The ALB's own figures for a target group, from CloudWatch: requests,
 * 5xx its targets answered, connections to targets that failed, and the
 * load balancer's own 5xx (a target group with no healthy target, a
 * timeout). CloudWatch counts whole minutes and publishes them one to three
 * minutes late, so the window is widened to whole minutes and a window that
 * ended less than DELAY_MS ago is said to be provisional.
 */

export const PERIOD_S = 60;
export const DELAY_MS = 3 * 60_000;

export const METRICS = {
  requests: 'RequestCount',
  target5xx: 'HTTPCode_Target_5XX_Count',
  connect: 'TargetConnectionErrorCount',
  elb5xx: 'HTTPCode_ELB_5XX_Count',
} as const;
export type MetricId = keyof typeof METRICS;

/** `…:targetgroup/api/abc` → `targetgroup/api/abc`; `…:loadbalancer/app/lb/123` → `app/lb/123` */
export function dimensionOf(arn: string, kind: 'targetgroup' | 'loadbalancer'): string {
  const resource = arn.split(':').slice(5).join(':');
  return kind === 'loadbalancer' ? resource.replace(/^loadbalancer\//, '') : resource;
}

export function metricQueries(targetGroupArn: string, loadBalancerArn: string): MetricDataQuery[] {
  const lb = { Name: 'LoadBalancer', Value: dimensionOf(loadBalancerArn, 'loadbalancer') };
  const tg = { Name: 'TargetGroup', Value: dimensionOf(targetGroupArn, 'targetgroup') };
  return (Object.entries(METRICS) as [MetricId, string][]).map(([id, name]) => ({
    Id: id.toLowerCase(),
    ReturnData: true,
    MetricStat: {
      Metric: {
        Namespace: 'AWS/ApplicationELB',
        MetricName: name,
        // the load balancer's own 5xx belong to no target group
        Dimensions: id === 'elb5xx' ? [lb] : [lb, tg],
      },
      Period: PERIOD_S,
      Stat: 'Sum',
    },
  }));
}

/** whole minutes around [from, to] */
export function minuteWindow(from: number, to: number): { start: Date; end: Date } {
  const minute = PERIOD_S * 1000;
  return {
    start: new Date(Math.floor(from / minute) * minute),
    end: new Date(Math.ceil(to / minute) * minute),
  };
}

/**
 * A failed connection to a target is answered 502 by the ALB, so it is in
 * ELB 5xx already; the ELB 5xx it does not explain are the ALB's own (no
 * healthy target, mostly), which RequestCount leaves out: it counts only
 * requests for which a target was chosen.
 *
 * HTTPCode_ELB_5XX_Count has no TargetGroup dimension: it is the whole load
 * balancer's, which other target groups may share. A group that saw no
 * request of its own in the window is charged none of them: they cannot be
 * told to be its own, and "60 failed of 60" for a group nobody called is
 * false. With traffic of its own, they are charged to it, as before.
 */
export function countsFromSums(sums: Readonly<Record<MetricId, number>>): Counts {
  const { requests, target5xx, connect } = sums;
  const own = requests + target5xx + connect > 0;
  const elb5xx = own ? sums.elb5xx : 0;
  const broken = Math.min(connect, elb5xx);
  const noTarget = elb5xx - broken;
  return {
    requests: requests + noTarget,
    failed: target5xx + elb5xx,
    kinds: { http_5xx: target5xx, connect: broken, no_server: noTarget },
  };
}
