import * as z from 'zod/mini';
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

const trigger = z.object({
  health: z.enum(['unknown', 'healthy', 'unhealthy']),
  failures: z.int().check(z.nonnegative()),
  successes: z.int().check(z.nonnegative()),
});

export const watchdogStateSchema = z.object({
  version: z.literal(1),
  services: z.record(
    z.string(),
    z.object({ trigger, restarts: z.array(z.number()), gaveUp: z.boolean() }),
  ),
  skippedFor: z.optional(z.string()),
  expiredMarker: z.optional(z.string()),
  noRelease: z.optional(z.boolean()),
  healStarted: z.optional(z.string()),
  healPassed: z.optional(z.string()),
});

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
