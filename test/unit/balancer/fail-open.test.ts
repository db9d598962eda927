import { describe, expect, it } from 'vitest';
import { failOpenMinimum, healthyNeeded } from '../../../src/balancer/fail-open.js';

const COUNT = 'target_group_health.unhealthy_state_routing.minimum_healthy_targets.count';
const PERCENTAGE = 'target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage';

describe("an ALB's fail-open minimum", () => {
  it('is 1 target when the group says nothing, as on AWS', () => {
    expect(failOpenMinimum(new Map())).toEqual({ count: 1 });
  });

  it('reads the count and the percentage, `off` meaning none', () => {
    expect(
      failOpenMinimum(
        new Map([
          [COUNT, '2'],
          [PERCENTAGE, 'off'],
        ]),
      ),
    ).toEqual({ count: 2 });
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
    });
  });

  it('needs the larger of the count and the percentage of registered targets, rounded up', () => {
    expect(healthyNeeded({ count: 1, percentage: 50 }, 5)).toBe(3);
    expect(healthyNeeded({ count: 4, percentage: 50 }, 5)).toBe(4);
    expect(healthyNeeded({ count: 1 }, 5)).toBe(1);
  });
});
