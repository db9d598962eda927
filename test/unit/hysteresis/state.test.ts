import { describe, expect, it } from 'vitest';
import { parseTriggerState } from '../../../src/hysteresis/state.js';

describe('parseTriggerState', () => {
  it.each([
    { health: 'unknown', failures: 0, successes: 0 },
    { health: 'healthy', failures: 3, successes: 0 },
    { health: 'healthy', failures: 0, successes: 7 },
    { health: 'unhealthy', failures: 5, successes: 0 },
    { health: 'unhealthy', failures: 0, successes: 1 },
  ])('accepts %o', (stored) => {
    expect(parseTriggerState(stored)).toEqual(stored);
  });

  it('keeps only the known keys', () => {
    const stored = { health: 'healthy', failures: 1, successes: 0, extra: 'x' };
    expect(parseTriggerState(stored)).toEqual({ health: 'healthy', failures: 1, successes: 0 });
  });

  it.each([
    ['null', null],
    ['a string', 'healthy'],
    ['a number', 3],
    ['an array', ['healthy', 0, 0]],
    ['an empty object', {}],
    ['an unknown health', { health: 'sick', failures: 1, successes: 0 }],
    ['a missing streak', { health: 'healthy', failures: 0 }],
    ['a streak as a string', { health: 'healthy', failures: '1', successes: 0 }],
    ['a negative streak', { health: 'healthy', failures: 0, successes: -1 }],
    ['a fractional streak', { health: 'healthy', failures: 0.5, successes: 0 }],
    ['an infinite streak', { health: 'healthy', failures: Infinity, successes: 0 }],
    ['both streaks running', { health: 'healthy', failures: 1, successes: 1 }],
    ['unknown after a failure', { health: 'unknown', failures: 1, successes: 0 }],
    ['unknown after a success', { health: 'unknown', failures: 0, successes: 1 }],
  ])('rejects %s', (_what, stored) => {
    expect(parseTriggerState(stored)).toBeUndefined();
  });
});
