import type { RawBalancer } from './balancer-schema.js';
import type { BalancerConfig, HealthCheckSettings } from './types.js';

/**
 * The balancer block → BalancerConfig. Its flat health-check keys become
 * `healthCheck`, present only when all four core settings are: a partial set
 * is reported by rules.ts, and half a timing model is worse than none.
 */

export function balancerConfig(raw: RawBalancer, local: (p: string) => string): BalancerConfig {
  switch (raw.kind) {
    case 'alb': {
      const healthCheck = optionalHealthCheck(raw);
      return {
        kind: 'alb',
        targetGroupArn: raw.target_group_arn,
        ...(raw.region !== undefined && { region: raw.region }),
        ...(healthCheck && { healthCheck }),
      };
    }
    case 'haproxy': {
      const healthCheck = optionalHealthCheck(raw);
      return {
        kind: 'haproxy',
        socket: raw.socket,
        backend: raw.backend,
        ...(raw.config !== undefined && { config: local(raw.config) }),
        ...(healthCheck && { healthCheck }),
      };
    }
    case 'static':
      return { kind: 'static', healthCheck: healthCheckSettings(raw) };
  }
}

type RawHealthCheck = Omit<Extract<RawBalancer, { kind: 'static' }>, 'kind'>;

function optionalHealthCheck(raw: Partial<RawHealthCheck>): HealthCheckSettings | undefined {
  const { interval, timeout, unhealthy_threshold, healthy_threshold } = raw;
  // rules.ts reports a partial set; here a partial set simply means "none"
  if (
    interval === undefined ||
    timeout === undefined ||
    unhealthy_threshold === undefined ||
    healthy_threshold === undefined
  )
    return undefined;
  return healthCheckSettings({ ...raw, interval, timeout, unhealthy_threshold, healthy_threshold });
}

function healthCheckSettings(raw: RawHealthCheck): HealthCheckSettings {
  return {
    interval: raw.interval,
    timeout: raw.timeout,
    unhealthyThreshold: raw.unhealthy_threshold,
    healthyThreshold: raw.healthy_threshold,
    ...(raw.deregistration_delay !== undefined && {
      deregistrationDelay: raw.deregistration_delay,
    }),
    ...(raw.slow_start !== undefined && { slowStart: raw.slow_start }),
    ...(raw.idle_timeout !== undefined && { idleTimeout: raw.idle_timeout }),
  };
}
