import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, readDuration } from '../../../src/config/kit/duration.js';
import { UsageError } from '../../../src/errors.js';

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['15s', 15_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['1h2m3s4ms', 3_723_004],
  ])('reads %s as %i ms', (text, ms) => {
    expect(readDuration(text)).toEqual({ ok: true, ms });
  });

  it('refuses a bare number because the unit would be a guess', () => {
    expect(readDuration(5)).toEqual({
      ok: false,
      reason: 'a duration needs a unit: 5 is ambiguous; write it like 500ms, 15s, 2m, 1h or 1m30s',
    });
  });

  it('refuses zero and negative durations as not positive', () => {
    expect(readDuration('0s')).toEqual({ ok: false, reason: 'must be positive, got "0s"' });
    expect(readDuration('-5s')).toEqual({ ok: false, reason: 'must be positive, got "-5s"' });
  });

  it('refuses units out of order, unknown units and words', () => {
    for (const text of ['30s1m', '5d', 'soon', '', '1.5s', '5 s']) {
      expect(readDuration(text).ok, text).toBe(false);
    }
  });

  it('cuts a huge value short in its message', () => {
    const parsed = readDuration('x'.repeat(10_000));
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason.length).toBeLessThan(120);
  });

  it('throws a usage error for a bad command-line value', () => {
    expect(() => parseDuration('soon', '--timeout')).toThrow(UsageError);
    expect(() => parseDuration('soon', '--timeout')).toThrow(
      /^--timeout: "soon" is not a duration/,
    );
  });

  it('refuses more than 24 days, which a timer would fire after 1 ms', () => {
    expect(readDuration('576h')).toEqual({ ok: true, ms: 576 * 3_600_000 });
    expect(readDuration('700h')).toEqual({
      ok: false,
      reason: '"700h" is longer than 24 days (576h), the most a timer can wait',
    });
    expect(() => parseDuration('700h', '--wait')).toThrow(UsageError);
  });

  it('formats milliseconds as the shortest exact spelling that reads back the same', () => {
    for (const ms of [1, 500, 15_000, 90_000, 3_723_004, 1_800_000]) {
      expect(readDuration(formatDuration(ms))).toEqual({ ok: true, ms });
    }
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(0)).toBe('0s');
  });
});
