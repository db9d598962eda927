import { describe, expect, it } from 'vitest';
import {
  describeMinimum,
  healthyNeeded,
  type FailOpenWords,
} from '../../../src/balancer/fail-open.js';

const words: FailOpenWords = { minimum: 'its minimum', balancer: 'it', setting: 'minimum' };

describe('a fail-open minimum', () => {
  it('needs the larger of the count and the percentage of registered targets, rounded up', () => {
    expect(healthyNeeded({ count: 1, percentage: 50, words }, 5)).toBe(3);
    expect(healthyNeeded({ count: 4, percentage: 50, words }, 5)).toBe(4);
    expect(healthyNeeded({ count: 1, words }, 5)).toBe(1);
  });

  it('says the count, and the percentage when there is one', () => {
    expect(describeMinimum({ count: 2, words })).toBe('2 target(s)');
    expect(describeMinimum({ count: 1, percentage: 50, words })).toBe('1 target(s) or 50%');
  });
});
