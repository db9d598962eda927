import { parseTriggerState } from './state.js';
import type { Health, HealthStrategy, Observation, TriggerState } from './strategy.js';

export interface Thresholds {
  /** consecutive failures that turn a healthy service unhealthy */
  readonly failures: number;
  /** consecutive successes that turn an unhealthy service healthy */
  readonly successes: number;
}

type Streaks = Pick<TriggerState, 'failures' | 'successes'>;

function next(current: Health, t: Thresholds, s: Streaks, ok: boolean): Health {
  // nothing to hold on to yet: waiting for a streak would report a dead service as 'unknown'
  if (current === 'unknown') return ok ? 'healthy' : 'unhealthy';
  if (ok) return s.successes >= t.successes ? 'healthy' : current;
  return s.failures >= t.failures ? 'unhealthy' : current;
}

/**
 * A Schmitt trigger: separate thresholds to fall and to rise, so one slow
 * answer does not restart a service and one lucky answer does not count a
 * broken one as fixed. Thresholds 1/1 follow every result (no hysteresis).
 */
export function schmittTrigger(thresholds: Thresholds): HealthStrategy {
  for (const [name, value] of Object.entries(thresholds)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      // config validation guarantees positive integers: this is a bug in the caller
      throw new RangeError(
        `schmittTrigger: ${name} threshold must be an integer ≥ 1, got ${value}`,
      );
    }
  }
  return {
    initial: () => ({ health: 'unknown', failures: 0, successes: 0 }),
    observe(state: TriggerState, ok: boolean): Observation {
      const streaks: Streaks = ok
        ? { failures: 0, successes: state.successes + 1 }
        : { failures: state.failures + 1, successes: 0 };
      const health = next(state.health, thresholds, streaks, ok);
      const after = { health, ...streaks };
      if (health === state.health) return { state: after };
      return { state: after, transition: ok ? 'became-healthy' : 'became-unhealthy' };
    },
    parse: parseTriggerState,
  };
}
