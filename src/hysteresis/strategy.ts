/**
 * One way to turn a stream of pass/fail results into a health state, shared by
 * the watchdog, `verify` and the health library so they cannot disagree on
 * what "unhealthy" means.
 */
export type Health = 'unknown' | 'healthy' | 'unhealthy';

export type Transition = 'became-unhealthy' | 'became-healthy';

/**
 * Plain JSON: the watchdog is a fresh process every tick and keeps this in a
 * file between ticks.
 */
export interface TriggerState {
  readonly health: Health;
  /** consecutive failed results, 0 after a success */
  readonly failures: number;
  /** consecutive passed results, 0 after a failure */
  readonly successes: number;
}

export interface Observation {
  readonly state: TriggerState;
  /** present only when `health` changed with this result */
  readonly transition?: Transition;
}

export interface HealthStrategy {
  /** the state before any result */
  initial(): TriggerState;
  /** pure: the next state after one result */
  observe(state: TriggerState, ok: boolean): Observation;
  /** a stored state, or undefined for anything that is not one (start fresh) */
  parse(stored: unknown): TriggerState | undefined;
}
