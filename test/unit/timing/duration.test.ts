import { describe, expect, it } from 'vitest';
import { formatDuration, formatMs } from '../../../src/timing/duration.js';

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [1_000, '1s'],
    [15_001, '15s1ms'],
    [90_000, '1m30s'],
    [3_600_000, '1h'],
    [3_723_004, '1h2m3s4ms'],
    [7_260_000, '2h1m'],
  ])('writes %i ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('rounds fractions of a millisecond', () => {
    expect([formatDuration(0.4), formatDuration(1.6)]).toEqual(['0s', '2ms']);
  });

  it('keeps the sign of a negative duration', () => {
    expect(formatDuration(-1_500)).toBe('-1s500ms');
  });
});

describe('formatMs, for measured times', () => {
  it.each([
    [0, '0s'],
    [12.4, '12ms'],
    [999, '999ms'],
    [1_000, '1.0s'],
    [1_234, '1.2s'],
    [9_999, '10.0s'],
    [10_000, '10s'],
    [59_400, '59s'],
    [60_000, '1m'],
    [75_000, '1m15s'],
    [119_600, '2m'],
  ])('writes %d ms as %s, rounded for a person', (ms, text) => {
    expect(formatMs(ms)).toBe(text);
  });

  it('agrees with formatDuration below a second, zero and fractions included', () => {
    for (const ms of [0, 0.4, 1.6, 500]) expect(formatMs(ms)).toBe(formatDuration(ms));
  });
});

describe('formatDuration of what is not a number of milliseconds', () => {
  it('says so instead of looping', () => {
    expect([formatDuration(Infinity), formatDuration(NaN)]).toEqual(['Infinityms', 'NaNms']);
  });
});
