import type { FailOpenMinimum, FailOpenWords } from '../fail-open.js';

/**
 * An ALB with fewer healthy targets than its target group's unhealthy-state
 * routing minimum fails open. The minimum is a count (default 1) and
 * optionally a percentage of the registered targets, read from the group's
 * attributes.
 */

const SETTING = 'target_group_health.unhealthy_state_routing.minimum_healthy_targets';
const COUNT = `${SETTING}.count`;
const PERCENTAGE = `${SETTING}.percentage`;

/** the capacity guard's refusal, in the ALB's words */
export const ALB_FAIL_OPEN: FailOpenWords = {
  minimum: "the target group's unhealthy-state routing minimum",
  balancer: 'the ALB',
  setting: SETTING,
};

export function failOpenMinimum(attributes: ReadonlyMap<string, string>): FailOpenMinimum {
  const count = Number(attributes.get(COUNT) ?? '1');
  const percentage = Number(attributes.get(PERCENTAGE) ?? 'off');
  return {
    count: Number.isInteger(count) && count >= 1 ? count : 1,
    ...(Number.isFinite(percentage) && percentage > 0 ? { percentage } : {}),
    words: ALB_FAIL_OPEN,
  };
}
