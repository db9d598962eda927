import { readDuration } from '../../../config/kit/duration.js';
import type { HealthCheckSettings } from '../../../config/kit/balancer-entry.js';
import type { KeyPath, RuleProblem } from '../../../config/kit/where.js';

/**
 * The values AWS accepts for an ELBv2 target group, by its load balancer's
 * type. A value outside them passes YAML and the timing model and is then
 * refused by AWS half-way through `deploy infra apply` ("AWS refused the
 * request", exit 1); here it is a config error on its own line, exit 2.
 *
 * Sources (Elastic Load Balancing API Reference, version 2015-12-01):
 * - CreateTargetGroup / ModifyTargetGroup: HealthCheckIntervalSeconds "Valid
 *   Range: Minimum value of 5. Maximum value of 300"; HealthCheckTimeoutSeconds
 *   "The range is 2–120 seconds"; HealthyThresholdCount and
 *   UnhealthyThresholdCount "The range is 2-10". The same for Application and
 *   Network Load Balancers.
 * - TargetGroupAttribute: deregistration_delay.timeout_seconds "The range is
 *   0-3600 seconds" (all load balancers); slow_start.duration_seconds "The
 *   range is 30-900 seconds (15 minutes). The default is 0 seconds (disabled)",
 *   listed among the attributes "supported only if the load balancer is an
 *   Application Load Balancer": a Network Load Balancer has no slow start.
 * - LoadBalancerAttribute: idle_timeout.timeout_seconds "The valid range is
 *   1-4000 seconds" (Application Load Balancers).
 */
export type LoadBalancerType = 'application' | 'network';

interface Range {
  readonly min: number;
  readonly max: number;
  /** a value outside min–max that AWS takes too (0: slow start off) */
  readonly also?: number;
  readonly unit: 's' | 'count';
}

const common: Readonly<Record<string, Range>> = {
  interval: { min: 5, max: 300, unit: 's' },
  timeout: { min: 2, max: 120, unit: 's' },
  healthy_threshold: { min: 2, max: 10, unit: 'count' },
  unhealthy_threshold: { min: 2, max: 10, unit: 'count' },
  deregistration_delay: { min: 0, max: 3600, unit: 's' },
};

export const awsRanges: Readonly<Record<LoadBalancerType, Readonly<Record<string, Range>>>> = {
  application: {
    ...common,
    slow_start: { min: 30, max: 900, also: 0, unit: 's' },
    idle_timeout: { min: 1, max: 4000, unit: 's' },
  },
  // no slow start on an NLB: only 0 (or leaving it out) is accepted
  network: { ...common, slow_start: { min: 0, max: 0, unit: 's' } },
};

const names: Record<LoadBalancerType, string> = {
  application: 'an Application Load Balancer',
  network: 'a Network Load Balancer',
};

/** Each key of one alb entry checked against its type's range; problems point at the key. */
export function awsRangeProblems(
  path: KeyPath,
  b: Readonly<Record<string, unknown>>,
): RuleProblem[] {
  const type: LoadBalancerType = b.type === 'network' ? 'network' : 'application';
  return Object.entries(awsRanges[type]).flatMap(([key, range]) => {
    const message = rangeProblem(b[key], range, type);
    return message === undefined ? [] : [{ path: [...path, key], message }];
  });
}

function rangeProblem(value: unknown, range: Range, type: LoadBalancerType): string | undefined {
  if (value === undefined) return undefined;
  const amount = range.unit === 'count' ? countOf(value) : secondsOf(value);
  // a value of the wrong shape is the schema's to report
  if (amount === undefined) return undefined;
  const written = JSON.stringify(value).replace(/^"|"$/g, '');
  return amountProblem(amount, range, type, written);
}

function amountProblem(
  amount: number,
  range: Range,
  type: LoadBalancerType,
  written: string,
): string | undefined {
  const accepted = (amount >= range.min && amount <= range.max) || amount === range.also;
  if (accepted && Number.isInteger(amount)) return undefined;
  if (accepted) return `AWS takes whole seconds; write ${Math.round(amount)}s`;
  return `AWS accepts ${describe(range)} for ${names[type]}'s target group, got ${written}`;
}

/** the settings deploy.yml writes as numbers (the other names where a setting is made) */
type NumericSetting = Exclude<keyof HealthCheckSettings, 'deregistrationDelaySetting'>;

/** deploy.yml's key of each setting as `deploy check --live` reads it */
const liveKeys: Readonly<Record<NumericSetting, string>> = {
  interval: 'interval',
  timeout: 'timeout',
  unhealthyThreshold: 'unhealthy_threshold',
  healthyThreshold: 'healthy_threshold',
  deregistrationDelay: 'deregistration_delay',
  slowStart: 'slow_start',
  idleTimeout: 'idle_timeout',
};

/**
 * What `deploy check --live` warns of: a live group holding a value this tool
 * refuses in deploy.yml (set by hand, or before AWS narrowed a range), so
 * `deploy infra apply` from a deploy.yml copied from it would fail.
 */
export function liveRangeWarnings(
  name: string,
  settings: HealthCheckSettings,
  type: LoadBalancerType = 'application',
): string[] {
  return Object.entries(liveKeys).flatMap(([field, key]) => {
    const range = awsRanges[type][key];
    const value = settings[field as NumericSetting];
    if (range === undefined || value === undefined) return [];
    const amount = range.unit === 'count' ? value : value / 1000;
    const written = range.unit === 'count' ? String(value) : `${amount}s`;
    const problem = amountProblem(amount, range, type, written);
    return problem === undefined ? [] : [`${name}: the live ${key}: ${problem}`];
  });
}

function describe(range: Range): string {
  const unit = range.unit === 's' ? ' s' : '';
  if (range.min === range.max) return `only ${range.min}${unit} (no slow start)`;
  const span = `${range.min}–${range.max}${unit}`;
  return range.also === undefined ? span : `${range.also} (off) or ${span}`;
}

function countOf(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function secondsOf(value: unknown): number | undefined {
  if (typeof value === 'string' && /^\s*0+(ms|s|m|h)?\s*$/.test(value)) return 0;
  const parsed = readDuration(value);
  return parsed.ok ? parsed.ms / 1000 : undefined;
}
