import { describe, expect, it } from 'vitest';
import { ALB_FAIL_OPEN, failOpenMinimum } from '../../../src/balancer/alb/fail-open.js';

const COUNT = 'target_group_health.unhealthy_state_routing.minimum_healthy_targets.count';
const PERCENTAGE = 'target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage';

describe("an ALB's fail-open minimum", () => {
  it('is 1 target when the group says nothing, as on AWS', () => {
    expect(failOpenMinimum(new Map())).toEqual({ count: 1, words: ALB_FAIL_OPEN });
  });

  it('reads the count and the percentage, `off` meaning none', () => {
    expect(
      failOpenMinimum(
        new Map([
          [COUNT, '2'],
          [PERCENTAGE, 'off'],
        ]),
      ),
    ).toEqual({ count: 2, words: ALB_FAIL_OPEN });
    expect(
      failOpenMinimum(
        new Map([
          [COUNT, '1'],
          [PERCENTAGE, '50'],
        ]),
      ),
    ).toEqual({
      count: 1,
      percentage: 50,
      words: ALB_FAIL_OPEN,
    });
  });

  it('names the setting that lowers it in its own words', () => {
    expect(`${ALB_FAIL_OPEN.setting}.count`).toBe(COUNT);
  });
});
