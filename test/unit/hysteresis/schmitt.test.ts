import { beforeEach, describe, expect, it } from 'vitest';
import { schmittTrigger } from '../../../src/hysteresis/schmitt.js';
import type { HealthStrategy, Observation } from '../../../src/hysteresis/strategy.js';

/** Feeds results one by one from the initial state, as ticks of the watchdog would. */
function run(strategy: HealthStrategy, results: boolean[]): Observation[] {
  const out: Observation[] = [];
  let state = strategy.initial();
  for (const ok of results) {
    const seen = strategy.observe(state, ok);
    out.push(seen);
    state = seen.state;
  }
  return out;
}

const last = (observations: Observation[]): Observation => observations.at(-1) as Observation;

describe('schmittTrigger', () => {
  let trigger: HealthStrategy;
  beforeEach(() => {
    trigger = schmittTrigger({ failures: 3, successes: 2 });
  });

  it('starts unknown with no streaks', () => {
    expect(trigger.initial()).toEqual({ health: 'unknown', failures: 0, successes: 0 });
  });

  it('takes the first success as healthy at once', () => {
    expect(run(trigger, [true])).toEqual([
      { state: { health: 'healthy', failures: 0, successes: 1 }, transition: 'became-healthy' },
    ]);
  });

  it('takes the first failure as unhealthy at once', () => {
    expect(run(trigger, [false])).toEqual([
      { state: { health: 'unhealthy', failures: 1, successes: 0 }, transition: 'became-unhealthy' },
    ]);
  });

  it('stays healthy through one failure fewer than the threshold', () => {
    const seen = run(trigger, [true, false, false]);
    expect(seen.slice(1)).toEqual([
      { state: { health: 'healthy', failures: 1, successes: 0 } },
      { state: { health: 'healthy', failures: 2, successes: 0 } },
    ]);
  });

  it('becomes unhealthy on the threshold-th failure in a row', () => {
    expect(last(run(trigger, [true, false, false, false]))).toEqual({
      state: { health: 'unhealthy', failures: 3, successes: 0 },
      transition: 'became-unhealthy',
    });
  });

  it('restarts the failure streak after a success', () => {
    const seen = run(trigger, [true, false, false, true, false, false]);
    expect(last(seen)).toEqual({ state: { health: 'healthy', failures: 2, successes: 0 } });
  });

  it('stays unhealthy through one success fewer than the threshold', () => {
    const seen = run(trigger, [false, true]);
    expect(last(seen)).toEqual({ state: { health: 'unhealthy', failures: 0, successes: 1 } });
  });

  it('becomes healthy on the threshold-th success in a row', () => {
    expect(last(run(trigger, [false, true, true]))).toEqual({
      state: { health: 'healthy', failures: 0, successes: 2 },
      transition: 'became-healthy',
    });
  });

  it('restarts the success streak after a failure', () => {
    const seen = run(trigger, [false, true, false, true]);
    expect(last(seen)).toEqual({ state: { health: 'unhealthy', failures: 0, successes: 1 } });
  });

  it('keeps counting a streak past its threshold without another transition', () => {
    const seen = run(trigger, [false, false, false, false]);
    expect(last(seen)).toEqual({ state: { health: 'unhealthy', failures: 4, successes: 0 } });
  });

  it('follows every result with thresholds 1/1', () => {
    const seen = run(schmittTrigger({ failures: 1, successes: 1 }), [true, false, true, true]);
    expect(seen.map((o) => [o.state.health, o.transition])).toEqual([
      ['healthy', 'became-healthy'],
      ['unhealthy', 'became-unhealthy'],
      ['healthy', 'became-healthy'],
      ['healthy', undefined],
    ]);
  });

  it('does not change the state it is given', () => {
    const state = Object.freeze({ health: 'healthy' as const, failures: 2, successes: 0 });
    trigger.observe(state, false);
    expect(state).toEqual({ health: 'healthy', failures: 2, successes: 0 });
  });

  it('continues from a state that went through a JSON file', () => {
    const before = last(run(trigger, [true, false, false])).state;
    const stored = trigger.parse(JSON.parse(JSON.stringify(before)));
    expect(stored && trigger.observe(stored, false)).toEqual({
      state: { health: 'unhealthy', failures: 3, successes: 0 },
      transition: 'became-unhealthy',
    });
  });

  it.each([
    [{ failures: 0, successes: 1 }, 'failures threshold must be an integer ≥ 1, got 0'],
    [{ failures: 1, successes: 0 }, 'successes threshold must be an integer ≥ 1, got 0'],
    [{ failures: 1.5, successes: 1 }, 'failures threshold must be an integer ≥ 1, got 1.5'],
    [{ failures: 2, successes: Number.NaN }, 'successes threshold must be an integer ≥ 1, got NaN'],
  ])('refuses thresholds %o', (thresholds, message) => {
    expect(() => schmittTrigger(thresholds)).toThrow(new RangeError(`schmittTrigger: ${message}`));
  });
});
