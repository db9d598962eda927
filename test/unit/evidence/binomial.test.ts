import { describe, expect, it } from 'vitest';
import {
  binomialCdf,
  binomialUpperTail,
  logGamma,
  wilsonUpper,
} from '../../../src/evidence/binomial.js';

describe('binomialCdf', () => {
  it('is the exact sum of the first terms for small counts', () => {
    // P(X ≤ 1 | 10, 0.1) = 0.9^10 + 10 · 0.1 · 0.9^9
    expect(binomialCdf(1, 10, 0.1)).toBeCloseTo(0.9 ** 10 + 10 * 0.1 * 0.9 ** 9, 14);
    expect(binomialCdf(0, 10, 0.1)).toBeCloseTo(0.9 ** 10, 14);
    expect(binomialCdf(2, 5, 0.5)).toBeCloseTo(16 / 32, 14);
  });

  it('is 0 below zero errors and 1 at or above all requests', () => {
    expect(binomialCdf(-1, 10, 0.1)).toBe(0);
    expect(binomialCdf(10, 10, 0.1)).toBe(1);
    expect(binomialCdf(11, 10, 0.1)).toBe(1);
    // summed to the end these would be 0.99999999999999…, and NaN past n + 1
    expect(binomialCdf(10, 10, 0.3)).toBe(1);
    expect(binomialCdf(20, 20, 0.37)).toBe(1);
    expect(binomialCdf(30, 10, 0.1)).toBe(1);
  });

  it('is 1 when no request can fail, and 0 below n and 1 at n when every request fails', () => {
    expect(binomialCdf(0, 10, 0)).toBe(1);
    expect(binomialCdf(9, 10, 1)).toBe(0);
    expect(binomialCdf(10, 10, 1)).toBe(1);
    expect(binomialCdf(9, 10, 1.5)).toBe(0);
  });

  it('stays exact for a million requests, where the first terms underflow', () => {
    // mean 10 000, sd ≈ 99.5: one sd above the mean is ≈ 0.841
    const p = binomialCdf(10_099, 1_000_000, 0.01);
    expect(p).toBeGreaterThan(0.83);
    expect(p).toBeLessThan(0.85);
  });

  it('never exceeds 1 through rounding', () => {
    expect(binomialCdf(999, 1000, 0.001)).toBeLessThanOrEqual(1);
    expect(binomialCdf(999, 1000, 0.001)).toBeCloseTo(1, 12);
  });
});

describe('binomialUpperTail', () => {
  it('is P(X ≥ k): one error in ten at a 1 % rate is a 9.6 % chance', () => {
    expect(binomialUpperTail(1, 10, 0.01)).toBeCloseTo(1 - 0.99 ** 10, 12);
  });

  it('is 1 for k = 0', () => {
    expect(binomialUpperTail(0, 10, 0.3)).toBe(1);
  });
});

describe('wilsonUpper', () => {
  it('matches the textbook bound', () => {
    // 3 of 3100 at z = 2.326
    const z = 2.326;
    const n = 3100;
    const r = 3 / n;
    const expected =
      (r + (z * z) / (2 * n) + z * Math.sqrt((r * (1 - r)) / n + (z * z) / (4 * n * n))) /
      (1 + (z * z) / n);
    expect(wilsonUpper(3, n, z)).toBeCloseTo(expected, 12);
    expect(wilsonUpper(3, n, z)).toBeGreaterThan(r);
  });

  it('is above zero for zero errors: no baseline is proven perfect', () => {
    expect(wilsonUpper(0, 100, 2.326)).toBeCloseTo(2.326 ** 2 / (100 + 2.326 ** 2), 12);
  });

  it('is 1 with no requests, and never above 1', () => {
    expect(wilsonUpper(0, 0, 2.326)).toBe(1);
    expect(wilsonUpper(10, 10, 2.326)).toBeLessThanOrEqual(1);
    expect(wilsonUpper(10, 10, 2.326)).toBeCloseTo(1, 12);
  });
});

describe('logGamma, where a sum past zero starts', () => {
  it('is log (x − 1)! at whole numbers and log(√π / 2) at 3/2, to 1e-11', () => {
    let logFactorial = 0;
    for (let x = 1; x <= 30; x += 1) {
      expect(logGamma(x)).toBeCloseTo(logFactorial, 11);
      logFactorial += Math.log(x);
    }
    expect(logGamma(1.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI) / 2), 11);
  });
});

/** the sum term by term from zero, as binomialCdf once did: exact, one step per error */
function everyTerm(k: number, n: number, p: number): number {
  const oddsLog = Math.log(p) - Math.log1p(-p);
  let logTerm = n * Math.log1p(-p);
  let sum = Math.exp(logTerm);
  for (let i = 0; i < k; i += 1) {
    logTerm += Math.log((n - i) / (i + 1)) + oddsLog;
    sum += Math.exp(logTerm);
  }
  return Math.min(1, sum);
}

describe('binomialCdf with counts a host cannot be trusted to keep small', () => {
  it('takes well under a second for a billion errors (once 15 s of a blocked event loop)', () => {
    const started = performance.now();
    expect(binomialCdf(1_000_000_000, 4_000_000_000, 0.0001)).toBe(1);
    expect(binomialCdf(39_000_000, 4_000_000_000, 0.01)).toBeLessThan(1e-100);
    expect(binomialCdf(40_000_000, 4_000_000_000, 0.01)).toBeGreaterThan(0.4);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('is 1 to a double’s precision 40 sd past the mean, on both sides of where it stops summing', () => {
    // a million requests at 1 %: mean 10 000, √(np) = 100 (sd ≈ 99.5): it stops 40·100 + 64 past the mean
    expect(binomialCdf(14_063, 1_000_000, 0.01)).toBeCloseTo(1, 15);
    expect(binomialCdf(14_064, 1_000_000, 0.01)).toBe(1);
  });

  it('agrees with the sum of every term where both can be computed', () => {
    for (const [k, n, p] of [
      [10_099, 1_000_000, 0.01],
      [9_800, 1_000_000, 0.01],
      [499_500, 1_000_000, 0.5],
      [120, 100_000, 0.001],
      [3, 50, 0.02],
    ] as const)
      expect(binomialCdf(k, n, p) / everyTerm(k, n, p)).toBeCloseTo(1, 6);
  });
});
