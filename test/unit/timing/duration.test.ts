import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../../src/timing/duration.js';

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
