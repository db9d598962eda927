import type { Duration, HealthCheckSettings } from '../../config/types.js';

/** A target group's health-check settings, with what only ELBv2 (an NLB above all) says of a drain. */
export interface AlbHealthCheck extends HealthCheckSettings {
  /**
   * an NLB's `deregistration_delay.connection_termination.enabled`: every
   * connection still open to a deregistered target is closed when the
   * deregistration delay ends
   */
  readonly connectionTermination?: boolean;
  /** `HealthCheckProtocol`; `TCP` (an NLB's default) only opens a connection, a 503 passes it */
  readonly checkProtocol?: string;
  /**
   * an NLB's `target_health_state.unhealthy.connection_termination.enabled`
   * (AWS's default true): every connection to a target is reset when it turns unhealthy
   */
  readonly unhealthyTermination?: boolean;
  /** an NLB's `target_health_state.unhealthy.draining_interval_seconds`: how long an unhealthy target keeps its connections when termination is off */
  readonly unhealthyDrainingInterval?: Duration;
}
