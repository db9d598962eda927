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
export function readyStatus(s: ReadyInputs): { status: ReadyStatus; code: 200 | 503 } {
  if (!s.started || s.critical === 'unknown') return { status: 'starting', code: 503 };
  if (s.draining) return { status: 'draining', code: 503 };
  if (s.critical === 'unhealthy') return { status: 'failing', code: 503 };
  if (s.overloaded) return { status: 'overloaded', code: 503 };
  return s.degraded ? { status: 'degraded', code: 200 } : { status: 'ok', code: 200 };
}
