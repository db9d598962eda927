import type { Balancer } from '../../balancer/balancer.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/types.js';
import { countsOf } from '../../evidence/kit/counts.js';
import { receiptSource } from '../../evidence/create-source.js';
import { readOrUnread, type EvidenceSource } from '../../evidence/kit/source.js';
import { batchSize } from '../../timing/bounds.js';
import { formatMs } from '../../timing/duration.js';

/** how long `deploy check --live` watches the counters to estimate the traffic */
export const SAMPLE_MS = 3_000;

/**
 * A canary whose bake could never see `min_requests` is inconclusive every
 * time: with a balancer's per-server counters as the source, `deploy check --live` counts
 * the requests each host gets over a few seconds, estimates what the canary
 * would get in its bake, and warns when that falls short. Nothing to say
 * without a canary, with another source, or with no traffic to count.
 */
export async function canaryTrafficWarnings(
  config: Config,
  clock: Clock,
  wait: (ms: number) => Promise<void>,
  /** the run's balancers, through which a balancer on its own host is counted (over SSH) */
  balancer?: () => Promise<Balancer>,
  sourceOf: (
    config: Config,
    clock: Clock,
    balancer?: () => Promise<Balancer>,
  ) => Promise<EvidenceSource | undefined> = receiptSource,
): Promise<string[]> {
  const canary = config.rollout.canary;
  const j = config.rollout.judgement;
  if (!canary || !j || j.source !== 'balancer') return [];
  const source = await sourceOf(config, clock, balancer);
  if (!source) return [];
  const hosts = config.hosts.map((h) => h.name);
  let window;
  try {
    window = await source.open(hosts);
  } catch {
    return [
      `rollout.canary: could not read ${source.label}'s counters to estimate the canary's traffic`,
    ];
  }
  await wait(SAMPLE_MS);
  const counts = await readOrUnread(window, hosts);
  const seen = hosts.flatMap((h) => {
    const w = counts.get(h);
    return w && w.kind === 'counted' ? [countsOf(w).requests] : [];
  });
  if (seen.length === 0) return [];
  const perHost = seen.reduce((a, b) => a + b, 0) / seen.length / (SAMPLE_MS / 1000);
  const canaryHosts = batchSize(canary.hosts, hosts.length);
  const expected = Math.round(perHost * canaryHosts * (canary.bake / 1000));
  if (expected >= j.minRequests) return [];
  const rate = perHost < 10 ? perHost.toFixed(1) : Math.round(perHost).toString();
  return [
    `rollout.canary: at the ${rate} requests/s per host ${source.label} counts now, the canary (${canaryHosts} host(s)) gets about ${expected} requests in its ${formatMs(canary.bake)} bake, below min_requests ${j.minRequests}: its verdict would be inconclusive (counted as ${j.inconclusive === 'pass' ? 'passed' : 'failed'}); lengthen rollout.canary.bake or lower min_requests`,
  ];
}
