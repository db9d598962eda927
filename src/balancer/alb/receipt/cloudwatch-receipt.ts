import type { Balancer } from '../../balancer.js';
import type { MetricsContext } from '../../kind.js';
import { membersOf } from '../../set.js';
import type { Clock } from '../../../clock.js';
import { HandoffError } from '../../../errors.js';
import { addCounts, noCounts, type Counts } from '../../../evidence/kit/counts.js';
import type { ReceiptFigures } from '../../../evidence/kit/figures.js';
import {
  unreadFor,
  type MetricsReader,
  type MetricsReceipt,
} from '../../../evidence/kit/metrics-receipt.js';
import { createAlbMetrics, type AlbMetrics, type MetricsTarget } from './cloudwatch.js';
import { countsFromSums, type MetricId } from './cloudwatch-queries.js';

/** The balancers in front of the fleet, by their deploy.yml names: the ALB target groups among them are counted. */
export interface MetricsGroup {
  readonly name: string;
  readonly balancer: Balancer;
}

/** An ALB of the run: it says what CloudWatch names its target group by (AlbBalancer.metricsTarget). */
type Measured = Balancer & { metricsTarget(): Promise<MetricsTarget> };

const measured = (b: Balancer): b is Measured => b.kind === 'alb';

/** Every balancer of the run by its deploy.yml name (one alone is known by its kind in a run). */
function metricsGroups(balancer: Balancer, names: readonly string[]): MetricsGroup[] {
  const members = membersOf(balancer);
  return members.map((m) => ({
    name: members.length === 1 ? (names[0] ?? m.name) : m.name,
    balancer: m.balancer,
  }));
}

/** The ALB kind's metrics receipt (BalancerKind.metricsReceipt): CloudWatch's, for the run's target groups. */
export function albMetricsReceipt(ctx: MetricsContext): MetricsReader {
  const names = ctx.config.balancers.map((b) => b.name);
  return cloudWatchCounts(async () => metricsGroups(await ctx.balancer(), names), ctx.clock);
}

export type OpenMetrics = (target: MetricsTarget, clock: Clock) => Promise<AlbMetrics>;

interface LoadedGroup {
  readonly target: MetricsTarget;
  readonly metrics: AlbMetrics;
}

interface Loaded {
  readonly source: string;
  readonly each: readonly LoadedGroup[];
  /** what failed while loading: the receipt is unread with its first line */
  readonly unread?: HandoffError;
  /** the balancers of other kinds beside the ALBs, whose share CloudWatch does not count: `internal (<kind>)` */
  readonly uncounted: readonly string[];
}

/** CloudWatch's count for the ALB target groups in front of the fleet, its clients loaded ahead when asked. */
export function cloudWatchCounts(
  groups: () => Promise<readonly MetricsGroup[]>,
  clock: Clock,
  open: OpenMetrics = createAlbMetrics,
): MetricsReader {
  let loading: Promise<Loaded | undefined> | undefined;
  const load = () => (loading ??= loadGroups(groups, clock, open));
  return {
    warm() {
      // awaited by receipt, which throws what is not a HandoffError
      load().catch(() => undefined);
    },
    async receipt(from, to) {
      const loaded = await load();
      // its clients end with this receipt: another one loads them again
      loading = undefined;
      return loaded && receiptOf(loaded, from, to);
    },
  };
}

/**
 * What CloudWatch says every ALB target group saw over [from, to]: their
 * sum, since each carries its own share of the traffic — except the load
 * balancer's own 5xx, which belong to no group: counted once per load
 * balancer, however many of its groups front the fleet. A group that cannot
 * be read (access denied, throttled) makes the receipt unread with its line,
 * never a zero. undefined when no balancer is an ALB.
 */
export function cloudWatchReceipt(
  groups: readonly MetricsGroup[],
  clock: Clock,
  from: number,
  to: number,
  open: OpenMetrics = createAlbMetrics,
): Promise<MetricsReceipt | undefined> {
  return cloudWatchCounts(() => Promise.resolve(groups), clock, open).receipt(from, to);
}

async function loadGroups(
  groups: () => Promise<readonly MetricsGroup[]>,
  clock: Clock,
  open: OpenMetrics,
): Promise<Loaded | undefined> {
  const all = await groups();
  const albs = all.filter((g): g is MetricsGroup & { balancer: Measured } => measured(g.balancer));
  if (albs.length === 0) return undefined;
  // a balancer of another kind beside the ALBs carries traffic CloudWatch never sees
  const uncounted = all
    .filter((g) => !measured(g.balancer))
    .map((g) => `${g.name} (${g.balancer.kind})`);
  const source = `CloudWatch ${albs.map((g) => g.name).join(' + ')}`;
  const each: LoadedGroup[] = [];
  try {
    for (const g of albs) {
      const target = await g.balancer.metricsTarget();
      each.push({ target, metrics: await open(target, clock) });
    }
  } catch (error) {
    for (const { metrics } of each) metrics.close();
    if (!(error instanceof HandoffError)) throw error;
    return { source, each: [], unread: error, uncounted };
  }
  return { source, each, uncounted };
}

async function receiptOf(loaded: Loaded, from: number, to: number): Promise<MetricsReceipt> {
  const { source } = loaded;
  const uncounted = loaded.uncounted.length > 0 ? { uncounted: loaded.uncounted } : {};
  const byLoadBalancer = new Map<string, Record<MetricId, number>>();
  let final = true;
  let window = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  let note = '';
  const unread = (error: HandoffError): MetricsReceipt => {
    const line = firstLine(error);
    return unreadFor(
      {
        source,
        hosts: [],
        total: { requests: 0, failed: 0, unread: line },
        window,
        final: false,
        note: line,
        ...uncounted,
      },
      error,
    );
  };
  if (loaded.unread !== undefined) return unread(loaded.unread);
  try {
    for (const { target, metrics } of loaded.each) {
      const r = await metrics.receipt(from, to);
      byLoadBalancer.set(
        target.loadBalancerArn,
        sameLoadBalancer(byLoadBalancer.get(target.loadBalancerArn), r.sums),
      );
      final &&= r.final;
      window = { from: r.from.toISOString(), to: r.to.toISOString() };
      note = r.note;
    }
  } catch (error) {
    if (!(error instanceof HandoffError)) throw error;
    return unread(error);
  } finally {
    for (const { metrics } of loaded.each) metrics.close();
  }
  const counts = [...byLoadBalancer.values()].reduce<Counts>(
    (all, sums) => addCounts(all, countsFromSums(sums)),
    noCounts,
  );
  const total: ReceiptFigures = {
    requests: counts.requests,
    failed: counts.failed,
    ...(counts.kinds !== undefined && { kinds: counts.kinds }),
  };
  return { source, hosts: [], total, window, final, note, ...uncounted };
}

function firstLine(error: Error): string {
  return error.message.split('\n')[0] ?? '';
}

/** Two groups of one load balancer: their own figures add up, its 5xx (the same series) do not. */
function sameLoadBalancer(
  seen: Readonly<Record<MetricId, number>> | undefined,
  sums: Readonly<Record<MetricId, number>>,
): Record<MetricId, number> {
  if (!seen) return { ...sums };
  return {
    requests: seen.requests + sums.requests,
    target5xx: seen.target5xx + sums.target5xx,
    connect: seen.connect + sums.connect,
    elb5xx: Math.max(seen.elb5xx, sums.elb5xx),
  };
}
