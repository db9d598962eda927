/**
 * A balancer with fewer healthy targets than its routing minimum fails open:
 * it routes to every target, drained ones included. A kind that has such a
 * minimum gives it through its adapter (`Balancer.failOpenMinimum`), and the
 * capacity guard keeps it: a count and optionally a percentage of the
 * registered targets.
 */
export interface FailOpenMinimum {
  readonly count: number;
  /** 1–100, or undefined for none */
  readonly percentage?: number;
  /** how the capacity guard's refusal says it, in the balancer's own words */
  readonly words: FailOpenWords;
}

export interface FailOpenWords {
  /** what the minimum is called */
  readonly minimum: string;
  /** what fails open below it */
  readonly balancer: string;
  /** the setting that lowers it */
  readonly setting: string;
}

/** How many targets must stay healthy out of `registered` for the balancer not to fail open. */
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
