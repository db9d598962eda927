import type { Batch, DrainConfig, Duration, HealthCheckSettings } from '../config/types.js';

/**
 * How long after the drain marker appears the balancer has, at worst, *started*
 * the last failing check that takes the target out: the first check after the
 * marker starts within one interval, the Nth within N intervals. That check's
 * own response can take up to `timeout` more; the overlap covers it (see the
 * `drain-before-stop` invariant), so the rollout may stop waiting here.
 *
 * With `deregister` the balancer stops new requests at once and keeps the
 * in-flight ones for the deregistration delay; unknown (a kind with no such setting), it
 * falls back to max_request, the longest a request we promise to finish runs.
 *
 * `drain.answer: 404` to a balancer that reads it as a soft stop takes the
 * server out at the first 404, one interval; the bound stays
 * `unhealthy_threshold` intervals all the same: a service started before
 * `drain.answer` changed, or one whose health endpoint is not handoff's
 * library, still answers 503, and at the bound the rollout moves on.
 */
export function awaitOutBound(settings: HealthCheckSettings, drain: DrainConfig): Duration {
  if (drain.method === 'deregister') return settings.deregistrationDelay ?? drain.maxRequest;
  return detectionBound(settings);
}

/** interval × unhealthy_threshold */
export function detectionBound(settings: HealthCheckSettings): Duration {
  return settings.interval * settings.unhealthyThreshold;
}

/**
 * How long after the undrain the balancer has the target back at worst:
 * healthy_threshold passing checks, plus slow start, during which the target
 * only gets a growing share of traffic.
 */
export function awaitInBound(settings: HealthCheckSettings): Duration {
  return timeBack(settings) + (settings.slowStart ?? 0);
}

/** interval × healthy_threshold: until the balancer routes to the target again */
export function timeBack(settings: HealthCheckSettings): Duration {
  return settings.interval * settings.healthyThreshold;
}

/**
 * Hosts drained at once. A percentage rounds down (never drain more than
 * asked) but is at least one host, or the rollout would never move.
 */
export function batchSize(batch: Batch, hosts: number): number {
  const asked = batch.kind === 'count' ? batch.count : Math.floor((hosts * batch.percent) / 100);
  return Math.max(1, Math.min(asked, hosts));
}

export function waves(hosts: number, size: number): number {
  return Math.ceil(hosts / size);
}
