import type { Health } from '../hysteresis/index.js';

export type ReadyStatus = 'starting' | 'draining' | 'failing' | 'overloaded' | 'degraded' | 'ok';

export interface ReadyInputs {
  readonly started: boolean;
  readonly draining: boolean;
  /** the critical checks together */
  readonly critical: Health;
  readonly overloaded: boolean;
  readonly degraded: boolean;
}

/**
 * Readiness in the order a balancer needs it: a service that is still
 * starting or draining says so before anything about its dependencies, and
 * a non-critical dependency never takes it out of rotation (200 degraded).
 */
export function readyStatus(
  s: ReadyInputs,
  drainCode: DrainCode = 503,
): { status: ReadyStatus; code: 200 | DrainCode } {
  if (!s.started || s.critical === 'unknown') return { status: 'starting', code: 503 };
  if (s.draining) return { status: 'draining', code: drainCode };
  if (s.critical === 'unhealthy') return { status: 'failing', code: 503 };
  if (s.overloaded) return { status: 'overloaded', code: 503 };
  return s.degraded ? { status: 'degraded', code: 200 } : { status: 'ok', code: 200 };
}

/** a drained service's status: 503, or 404 for a balancer that reads it as a soft stop */
export type DrainCode = 503 | 404;

/**
 * deploy.yml's `drain.answer` as the runtime exports it (`HANDOFF_DRAIN_ANSWER`):
 * 404 only when it says exactly that; anything else is the 503 every
 * balancer reads as out.
 */
export function drainCodeFrom(env: Readonly<Record<string, string | undefined>>): DrainCode {
  return env.HANDOFF_DRAIN_ANSWER?.trim() === '404' ? 404 : 503;
}
