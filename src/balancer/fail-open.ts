/**
 * An ALB with fewer healthy targets than its unhealthy-state routing minimum
 * fails open: it routes to every target, drained ones included. The minimum
 * is a count (default 1) and optionally a percentage of the registered targets.
 */
export interface FailOpenMinimum {
  readonly count: number;
  /** 1–100, or undefined for `off` */
  readonly percentage?: number;
}

const COUNT = 'target_group_health.unhealthy_state_routing.minimum_healthy_targets.count';
const PERCENTAGE = 'target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage';

export function failOpenMinimum(attributes: ReadonlyMap<string, string>): FailOpenMinimum {
  const count = Number(attributes.get(COUNT) ?? '1');
  const percentage = Number(attributes.get(PERCENTAGE) ?? 'off');
  return {
    count: Number.isInteger(count) && count >= 1 ? count : 1,
    ...(Number.isFinite(percentage) && percentage > 0 ? { percentage } : {}),
  };
}

/** How many targets must stay healthy out of `registered` for the group not to fail open. */
export function healthyNeeded(minimum: FailOpenMinimum, registered: number): number {
  const byPercentage =
    minimum.percentage !== undefined ? Math.ceil((minimum.percentage / 100) * registered) : 0;
  return Math.max(minimum.count, byPercentage);
}

export function describeMinimum(minimum: FailOpenMinimum): string {
  return minimum.percentage !== undefined
    ? `${minimum.count} target(s) or ${minimum.percentage}%`
    : `${minimum.count} target(s)`;
}
