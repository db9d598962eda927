import * as shape from '../host/json-shape.js';
import type { TriggerState } from '../hysteresis/index.js';

/** Per service, everything a fresh process needs to continue where the last tick stopped. */
export interface ServiceMemory {
  readonly trigger: TriggerState;
  /** ms timestamps of restarts inside the restart window */
  readonly restarts: readonly number[];
  /** set once the restart cap was hit; cleared when the service is healthy again */
  readonly gaveUp: boolean;
}

export interface WatchdogState {
  readonly version: 1;
  readonly services: Readonly<Record<string, ServiceMemory>>;
  /** the lock holder's `since` we already logged a skip for: log once per deploy */
  readonly skippedFor?: string;
  /** the drain marker's `since` we already reported as expired */
  readonly expiredMarker?: string;
  /** no release was live at the last tick: said once, not every minute */
  readonly noRelease?: boolean;
  /** the expired rollout marker (`since`) whose release the watchdog already started to heal it */
  readonly healStarted?: string;
  /** the expired rollout marker whose release passes, left drained (deregister): said once */
  readonly healPassed?: string;
}

const trigger = shape.object({
  health: shape.oneOf('unknown', 'healthy', 'unhealthy'),
  failures: shape.nonNegativeInt,
  successes: shape.nonNegativeInt,
});

export const watchdogStateSchema = shape.parser<WatchdogState>(
  shape.object({
    version: shape.literal(1),
    services: shape.record(
      shape.object({ trigger, restarts: shape.array(shape.number), gaveUp: shape.boolean }),
    ),
    skippedFor: shape.optional(shape.string),
    expiredMarker: shape.optional(shape.string),
    noRelease: shape.optional(shape.boolean),
    healStarted: shape.optional(shape.string),
    healPassed: shape.optional(shape.string),
  }),
);

export function freshState(): WatchdogState {
  return { version: 1, services: {} };
}

/**
 * While a deploy or a planned drain owns the host, failures are on purpose:
 * forget the streaks so the first failure after it is not counted as the Nth.
 */
export function forgetStreaks(state: WatchdogState): WatchdogState {
  const services: Record<string, ServiceMemory> = {};
  for (const [name, memory] of Object.entries(state.services)) {
    services[name] = { ...memory, trigger: { ...memory.trigger, failures: 0, successes: 0 } };
  }
  return { ...state, services };
}
