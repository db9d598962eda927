import { ApiError } from './registrations.js';

/**
 * The values the endpoint refuses, as AWS does, with `ValidationError`
 * (HTTP 400). Written from the Elastic Load Balancing API Reference
 * (2015-12-01), not from handoff's own table (src/balancer/alb/config/ranges.ts), so
 * the lab catches the tool sending what AWS would refuse:
 * - ModifyTargetGroup, HealthCheckIntervalSeconds: "Valid Range: Minimum
 *   value of 5. Maximum value of 300."; HealthCheckTimeoutSeconds: "Valid
 *   Range: Minimum value of 2. Maximum value of 120."; HealthyThresholdCount
 *   and UnhealthyThresholdCount: "Valid Range: Minimum value of 2. Maximum
 *   value of 10."
 * - TargetGroupAttribute: deregistration_delay.timeout_seconds "The range is
 *   0-3600 seconds."; slow_start.duration_seconds "The range is 30-900
 *   seconds (15 minutes). The default is 0 seconds (disabled)."
 * The wording of the messages is the lab's; the code and status are AWS's
 * (Common Errors: ValidationError "The input fails to satisfy the
 * constraints specified by an AWS service", HTTP 400).
 */
const groupFields: Readonly<Record<string, readonly [number, number]>> = {
  HealthCheckIntervalSeconds: [5, 300],
  HealthCheckTimeoutSeconds: [2, 120],
  HealthyThresholdCount: [2, 10],
  UnhealthyThresholdCount: [2, 10],
};

const attributes: Readonly<Record<string, (n: number) => boolean>> = {
  'deregistration_delay.timeout_seconds': (n) => n >= 0 && n <= 3600,
  'slow_start.duration_seconds': (n) => n === 0 || (n >= 30 && n <= 900),
};

/** ModifyTargetGroup's parameters, refused as AWS's API model refuses them. */
export function checkGroupFields(params: ReadonlyMap<string, string>): void {
  for (const [field, [min, max]] of Object.entries(groupFields)) {
    const value = params.get(field);
    if (value === undefined) continue;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new ApiError(
        'ValidationError',
        `1 validation error detected: Value '${value}' at '${field[0]?.toLowerCase()}${field.slice(1)}' failed to satisfy constraint: Member must have value ${n < min ? `greater than or equal to ${min}` : `less than or equal to ${max}`}`,
      );
  }
}

/** ModifyTargetGroupAttributes' values outside the documented ranges. */
export function checkAttributes(list: readonly Record<string, string>[]): void {
  for (const a of list) {
    const accepts = a.Key === undefined ? undefined : attributes[a.Key];
    const n = Number(a.Value);
    if (accepts && !(Number.isInteger(n) && accepts(n)))
      throw new ApiError(
        'ValidationError',
        `The value of '${a.Key ?? ''}' must be within its documented range, got '${a.Value ?? ''}'`,
      );
  }
}
