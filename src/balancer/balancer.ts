import type { HealthCheckSettings } from '../config/types.js';

/**
 * What the balancer says of one target. `inRotation` is the only thing the
 * rollout decides on: true = receives new requests, false = does not,
 * null = this balancer cannot tell (static).
 */
export interface TargetState {
  readonly target: string;
  readonly state:
    'healthy' | 'unhealthy' | 'draining' | 'initial' | 'unused' | 'unavailable' | 'unknown';
  readonly inRotation: boolean | null;
  readonly reason?: string;
}

export interface Balancer {
  readonly kind: 'alb' | 'haproxy' | 'static';
  /** the health-check settings in force, in the shape the timing model takes */
  settings(): Promise<HealthCheckSettings>;
  /** the state of each named target; a target the balancer does not know is `unused` */
  states(targets: readonly string[]): Promise<ReadonlyMap<string, TargetState>>;
  /** drain.method deregister: stop sending new requests / take it back */
  deregister(target: string): Promise<void>;
  register(target: string): Promise<void>;
  close(): Promise<void>;
}
