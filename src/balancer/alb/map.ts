import type {
  TargetGroup,
  TargetHealthDescription,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import type { TargetState } from '../balancer.js';
import { isRegistration, otherPorts, parseTarget, targetKey, type TargetKey } from './targets.js';
import type { AlbHealthCheck } from './health-check.js';

/** Pure translations between the ELBv2 API's shapes and ours. */

const states: Record<string, TargetState['state']> = {
  healthy: 'healthy',
  unhealthy: 'unhealthy',
  'unhealthy.draining': 'draining',
  draining: 'draining',
  initial: 'initial',
  unused: 'unused',
  unavailable: 'unavailable',
};

/**
 * Only `healthy` is in rotation: `initial` has not passed its checks yet,
 * `draining` finishes old requests but takes no new ones. A target is the
 * registration AWS keys by (Id, Port) (alb-targets.ts): a target written
 * without a port is the one on the group's port, and its instance or address
 * registered on another port too is one a drain through the group's port
 * would leave serving, so it is reported `other-port` and preflight refuses it.
 */
export function toTargetState(
  target: string,
  descriptions: readonly TargetHealthDescription[],
  groupPort?: number,
): TargetState {
  const key = targetKey(target, groupPort);
  const mine = descriptions.filter((d) => isRegistration(key, d));
  const others = otherPorts(key, descriptions);
  const chosen = mine.find((d) => d.TargetHealth?.State === 'healthy') ?? mine[0];
  if (!chosen) {
    return {
      target,
      state: 'unused',
      inRotation: false,
      ...(others.length > 0
        ? { unregistered: 'other-port' as const, reason: otherPortReason(target, key, others) }
        : { unregistered: 'absent' as const, reason: 'not registered in the target group' }),
    };
  }
  const health = chosen.TargetHealth;
  const state = states[health?.State ?? ''] ?? 'unknown';
  const reason = [health?.Reason, health?.Description].filter(Boolean).join(': ');
  const portless = parseTarget(target).port === undefined;
  if (portless && others.length > 0)
    return {
      target,
      state,
      inRotation: state === 'healthy',
      unregistered: 'other-port',
      reason: otherPortReason(target, key, others),
    };
  return { target, state, inRotation: state === 'healthy', ...(reason ? { reason } : {}) };
}

function otherPortReason(target: string, key: TargetKey, others: readonly number[]): string {
  const on = `registered on port ${others.join(', ')}`;
  if (parseTarget(target).port !== undefined) return `${on}, not ${key.Port}`;
  const group = key.Port === undefined ? '' : ` (the group's port is ${key.Port})`;
  return `${on}${group}: write the port in hosts[].target, e.g. ${key.Id}:${others[0]}`;
}

export interface AlbAttributes {
  readonly group: ReadonlyMap<string, string>;
  readonly loadBalancer?: ReadonlyMap<string, string>;
}

export function toSettings(group: TargetGroup, attributes: AlbAttributes): AlbHealthCheck {
  const seconds = (value: number | string | undefined): number | undefined => {
    const n = Number(value);
    return value !== undefined && value !== '' && Number.isFinite(n) ? n * 1000 : undefined;
  };
  const deregistrationDelay = seconds(attributes.group.get('deregistration_delay.timeout_seconds'));
  const slowStart = seconds(attributes.group.get('slow_start.duration_seconds'));
  const idleTimeout = seconds(attributes.loadBalancer?.get('idle_timeout.timeout_seconds'));
  // an NLB's only (TargetGroupAttribute): "terminates connections at the end of the deregistration timeout"
  const termination = attributes.group.get('deregistration_delay.connection_termination.enabled');
  // an NLB's only (TargetGroupAttribute): connections to a target that turns unhealthy
  const unhealthy = attributes.group.get(
    'target_health_state.unhealthy.connection_termination.enabled',
  );
  const unhealthyDrainingInterval = seconds(
    attributes.group.get('target_health_state.unhealthy.draining_interval_seconds'),
  );
  return {
    interval: seconds(group.HealthCheckIntervalSeconds) ?? 30_000,
    timeout: seconds(group.HealthCheckTimeoutSeconds) ?? 5_000,
    unhealthyThreshold: group.UnhealthyThresholdCount ?? 2,
    healthyThreshold: group.HealthyThresholdCount ?? 5,
    ...(deregistrationDelay !== undefined ? { deregistrationDelay } : {}),
    ...(slowStart !== undefined ? { slowStart } : {}),
    ...(idleTimeout !== undefined ? { idleTimeout } : {}),
    ...(termination === 'true' ? { connectionTermination: true } : {}),
    ...(unhealthy === 'true' || unhealthy === 'false'
      ? { unhealthyTermination: unhealthy === 'true' }
      : {}),
    ...(unhealthyDrainingInterval !== undefined ? { unhealthyDrainingInterval } : {}),
    ...(group.HealthCheckProtocol !== undefined
      ? { checkProtocol: group.HealthCheckProtocol }
      : {}),
  };
}

export function attributeMap(
  attributes: readonly { Key?: string; Value?: string }[] | undefined,
): Map<string, string> {
  const map = new Map<string, string>();
  for (const a of attributes ?? [])
    if (a.Key !== undefined && a.Value !== undefined) map.set(a.Key, a.Value);
  return map;
}
