import type { Health, TriggerState } from './strategy.js';

const healths: readonly unknown[] = ['unknown', 'healthy', 'unhealthy'] satisfies Health[];

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/**
 * A state read back from disk, or undefined. A half-written or hand-edited
 * file must not make the watchdog restart (or spare) a service: garbage means
 * start fresh. Only the known keys are kept.
 */
export function parseTriggerState(stored: unknown): TriggerState | undefined {
  // Object() turns null and primitives into objects without these keys: rejected below
  const { health, failures, successes } = Object(stored) as Record<string, unknown>;
  if (!healths.includes(health) || !isCount(failures) || !isCount(successes)) return undefined;
  // a result resets the other streak, so both can never be running at once
  if (failures > 0 && successes > 0) return undefined;
  // the first result leaves 'unknown', so unknown has seen nothing
  if (health === 'unknown' && failures + successes > 0) return undefined;
  return { health: health as Health, failures, successes };
}
