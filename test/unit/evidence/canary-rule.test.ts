import { describe, expect, it } from 'vitest';
import {
  judgeAtEnd,
  judgeDuringBake,
  latencyFloorFor,
  percent,
  rate,
  settle,
  type CanaryRule,
} from '../../../src/evidence/canary-rule.js';

const rule: CanaryRule = { margin: 0.01, minRequests: 10 };
const side = (errors: number, requests: number, latencyMs?: number) => ({
  errors,
  requests,
  ...(latencyMs !== undefined && { latencyMs }),
});
const quiet = side(3, 3100);

describe('the canary rule at the end of the bake, small counts', () => {
  it('does not fail a canary for 1 error in 10 requests', () => {
    const j = judgeAtEnd(side(1, 10), quiet, rule);
    expect(j.verdict).toBe('inconclusive');
    expect(j.reason).toBe(
      'canary 1 errors of 10 requests (10.0 %), baseline 3 errors of 3100 requests (0.097 %): too few requests to tell a difference of 1.0 %',
    );
  });

  it('does not pass a canary for 0 errors in 10 requests', () => {
    expect(judgeAtEnd(side(0, 10), quiet, rule).verdict).toBe('inconclusive');
  });

  it('is inconclusive below min_requests on the canary, naming it', () => {
    expect(judgeAtEnd(side(9, 9), quiet, rule)).toEqual({
      verdict: 'inconclusive',
      reason: 'the canary saw 9 requests, fewer than min_requests 10',
    });
  });

  it('is inconclusive below min_requests on the baseline, naming it', () => {
    expect(judgeAtEnd(side(0, 5000), side(0, 9), rule)).toEqual({
      verdict: 'inconclusive',
      reason: 'the baseline saw 9 requests, fewer than min_requests 10',
    });
  });

  it('takes exactly min_requests as enough', () => {
    expect(judgeAtEnd(side(10, 10), side(0, 10), rule).verdict).toBe('fail');
  });
});

describe('the canary rule at the end of the bake, clear cases', () => {
  it('fails the issue example with its numbers', () => {
    expect(judgeAtEnd(side(212, 1040), quiet, rule)).toEqual({
      verdict: 'fail',
      reason:
        'canary 212 errors of 1040 requests (20.4 %), baseline 3 errors of 3100 requests (0.097 %): worse by more than margin 1.0 %',
    });
  });

  it('passes a canary as good as its baseline with enough requests', () => {
    expect(judgeAtEnd(side(20, 2000), side(20, 2000), rule)).toEqual({
      verdict: 'pass',
      reason:
        'canary 20 errors of 2000 requests (1.0 %), baseline 20 errors of 2000 requests (1.0 %): within margin 1.0 %',
    });
  });

  it('passes 0 errors in 500 against a clean baseline', () => {
    expect(judgeAtEnd(side(0, 500), side(0, 1500), rule).verdict).toBe('pass');
  });

  it('leaves 0 errors in 400 inconclusive: 0.99^400 is not yet below 1 %', () => {
    // 0.99^458 < 0.01 ≤ 0.99^457
    expect(judgeAtEnd(side(0, 457), side(0, 1500), rule).verdict).toBe('inconclusive');
    expect(judgeAtEnd(side(0, 459), side(0, 1500), rule).verdict).toBe('pass');
  });

  it('is inconclusive for the same rate with too few requests to tell', () => {
    expect(judgeAtEnd(side(10, 1000), side(30, 3000), rule).verdict).toBe('inconclusive');
  });

  it("allows for the baseline's own noise before failing", () => {
    // 5 % against 0/20: the baseline's bound (≈ 21 %) covers it
    expect(judgeAtEnd(side(5, 100), side(0, 20), rule).verdict).not.toBe('fail');
    expect(judgeAtEnd(side(5, 100), side(0, 20_000), rule).verdict).toBe('fail');
  });

  it('passes any canary with a request left when the margin allows every request to fail', () => {
    expect(judgeAtEnd(side(9, 10), side(0, 10), { ...rule, margin: 1 }).verdict).toBe('pass');
    expect(judgeAtEnd(side(9, 10), side(5, 10), { ...rule, margin: 0.6 }).verdict).toBe('pass');
  });

  it('never fails when the allowed rate reaches 100 %', () => {
    expect(judgeAtEnd(side(10, 10), side(9, 10), { ...rule, margin: 0.5 }).verdict).not.toBe(
      'fail',
    );
  });
});

describe('latency', () => {
  const latency = { ...rule, latencyMargin: 0.5 };

  it('fails a canary slower than the baseline by more than latency_margin', () => {
    expect(judgeAtEnd(side(0, 1000, 151), side(0, 3000, 100), latency)).toEqual({
      verdict: 'fail',
      reason:
        'the canary answers in 151 ms on average, the baseline in 100 ms (latency_margin 50.0 %, latency_floor 5 ms)',
    });
  });

  it('passes one exactly at the margin', () => {
    expect(judgeAtEnd(side(0, 1000, 150), side(0, 3000, 100), latency).verdict).toBe('pass');
  });

  it('passes a canary whose latency differs by less than the floor (issue 34: 1 ms against 0 ms, 2 ms against 1 ms)', () => {
    expect(judgeAtEnd(side(0, 1000, 1), side(0, 3000, 0), latency).verdict).toBe('pass');
    expect(judgeAtEnd(side(0, 1000, 2), side(0, 3000, 1), latency).verdict).toBe('pass');
    expect(judgeAtEnd(side(0, 1000, 7), side(0, 3000, 2), latency).verdict).toBe('pass');
  });

  it('fails one slower by more than both the margin and the floor, naming the floor', () => {
    expect(judgeAtEnd(side(0, 1000, 8), side(0, 3000, 2), latency)).toEqual({
      verdict: 'fail',
      reason:
        'the canary answers in 8 ms on average, the baseline in 2 ms (latency_margin 50.0 %, latency_floor 5 ms)',
    });
    const floor20 = { ...latency, latencyFloorMs: 20 };
    expect(judgeAtEnd(side(0, 1000, 119), side(0, 3000, 100), floor20).verdict).toBe('pass');
  });

  it("never takes a floor finer than its source's resolution: HAProxy reports whole milliseconds", () => {
    expect(latencyFloorFor('balancer', 0)).toBe(1);
    expect(latencyFloorFor('balancer', 5)).toBe(5);
    expect(latencyFloorFor('service', 0)).toBe(0);
    expect(latencyFloorFor('command', 0.5)).toBe(0.5);
  });

  it('ignores latency without latency_margin or without a figure on either side', () => {
    expect(judgeAtEnd(side(0, 1000, 900), side(0, 3000, 100), rule).verdict).toBe('pass');
    expect(judgeAtEnd(side(0, 1000), side(0, 3000, 100), latency).verdict).toBe('pass');
    expect(judgeAtEnd(side(0, 1000, 900), side(0, 3000), latency).verdict).toBe('pass');
  });
});

describe('the canary rule during the bake', () => {
  it('fails early when most requests fail', () => {
    expect(judgeDuringBake(side(90, 100), quiet, rule, 60)).toEqual({
      verdict: 'fail',
      reason:
        'canary 90 errors of 100 requests (90.0 %), baseline 3 errors of 3100 requests (0.097 %): conclusively worse',
    });
  });

  it('keeps baking what the end would fail but an early look may not', () => {
    // p ≈ 0.0024 against the bound: below ALPHA, above EARLY_ALPHA / 3 looks
    const canary = side(6, 100);
    expect(judgeAtEnd(canary, quiet, rule).verdict).toBe('fail');
    expect(judgeDuringBake(canary, quiet, rule, 3)).toEqual({
      verdict: 'pending',
      reason:
        'canary 6 errors of 100 requests (6.0 %), baseline 3 errors of 3100 requests (0.097 %)',
    });
  });

  it('is stricter the more often it looks', () => {
    const canary = side(7, 100);
    expect(judgeDuringBake(canary, quiet, rule, 1).verdict).toBe('fail');
    expect(judgeDuringBake(canary, quiet, rule, 1000).verdict).toBe('pending');
  });

  it('counts zero looks as one', () => {
    expect(judgeDuringBake(side(6, 100), quiet, rule, 0).verdict).toBe('fail');
    expect(judgeDuringBake(side(4, 100), quiet, rule, 0).verdict).toBe('pending');
  });

  it('never passes early, and says why it waits below min_requests', () => {
    expect(judgeDuringBake(side(0, 100_000), quiet, rule, 1).verdict).toBe('pending');
    expect(judgeDuringBake(side(9, 9), quiet, rule, 1)).toEqual({
      verdict: 'pending',
      reason: 'the canary saw 9 requests, fewer than min_requests 10',
    });
  });
});

describe('settle', () => {
  const inconclusive = { verdict: 'inconclusive' as const, reason: 'too few' };

  it('counts an inconclusive end as failed with inconclusive: fail', () => {
    expect(settle(inconclusive, 'fail')).toEqual({
      passed: false,
      reason: 'inconclusive (too few): counts as failed, by inconclusive: fail',
    });
  });

  it('counts an inconclusive end as passed with inconclusive: pass', () => {
    expect(settle(inconclusive, 'pass')).toEqual({
      passed: true,
      reason: 'inconclusive (too few): counts as passed, by inconclusive: pass',
    });
  });

  it('keeps a pass and a fail as they are', () => {
    expect(settle({ verdict: 'pass', reason: 'ok' }, 'fail')).toEqual({
      passed: true,
      reason: 'ok',
    });
    expect(settle({ verdict: 'fail', reason: 'bad' }, 'pass')).toEqual({
      passed: false,
      reason: 'bad',
    });
  });
});

describe('how numbers read', () => {
  it('writes rates with one decimal from 1 %, two figures below, and 0 as 0', () => {
    expect(percent(0.204)).toBe('20.4 %');
    expect(percent(0.01)).toBe('1.0 %');
    expect(percent(0.1)).toBe('10.0 %');
    expect(percent(0.0999)).toBe('10 %');
    expect(percent(0.00097)).toBe('0.097 %');
    expect(percent(0)).toBe('0 %');
  });

  it('writes a side with no requests without a rate', () => {
    expect(rate(side(0, 0))).toBe('0 errors of 0 requests');
  });
});
