import type {
  TargetDescription,
  TargetGroup,
  TargetHealthDescription,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import type { HealthCheckSettings } from '../config/types.js';
import type { TargetState } from './balancer.js';

/** Pure translations between the ELBv2 API's shapes and ours. */

/** `i-0abc` or `10.0.1.11`, optionally with `:port` when the group's port is not the one */
export function toTargetDescription(target: string): TargetDescription {
  const match = /^([^:]+):(\d{1,5})$/.exec(target);
  return match?.[1] !== undefined ? { Id: match[1], Port: Number(match[2]) } : { Id: target };
}

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
 * `draining` finishes old requests but takes no new ones. A target registered
 * on several ports is in rotation while any registration is, because a
 * drain is over only when the last one stopped receiving requests.
 */
export function toTargetState(
  target: string,
  descriptions: readonly TargetHealthDescription[],
): TargetState {
  const wanted = toTargetDescription(target);
  const mine = descriptions.filter(
    (d) =>
      d.Target?.Id === wanted.Id && (wanted.Port === undefined || d.Target?.Port === wanted.Port),
  );
  const chosen = mine.find((d) => d.TargetHealth?.State === 'healthy') ?? mine[0];
  if (!chosen) {
    const ports = descriptions
      .filter((d) => d.Target?.Id === wanted.Id && d.Target?.Port !== undefined)
      .map((d) => String(d.Target?.Port));
    return {
      target,
      state: 'unused',
      inRotation: false,
      ...(ports.length > 0
        ? {
            unregistered: 'other-port' as const,
            reason: `registered on port ${ports.join(', ')}, not ${wanted.Port}`,
          }
        : { unregistered: 'absent' as const, reason: 'not registered in the target group' }),
    };
  }
  const health = chosen.TargetHealth;
  const state = states[health?.State ?? ''] ?? 'unknown';
  const reason = [health?.Reason, health?.Description].filter(Boolean).join(': ');
  return { target, state, inRotation: state === 'healthy', ...(reason ? { reason } : {}) };
}

export interface AlbAttributes {
  readonly group: ReadonlyMap<string, string>;
  readonly loadBalancer?: ReadonlyMap<string, string>;
}

export function toSettings(group: TargetGroup, attributes: AlbAttributes): HealthCheckSettings {
  const seconds = (value: number | string | undefined): number | undefined => {
    const n = Number(value);
    return value !== undefined && value !== '' && Number.isFinite(n) ? n * 1000 : undefined;
  };
  const deregistrationDelay = seconds(attributes.group.get('deregistration_delay.timeout_seconds'));
  const slowStart = seconds(attributes.group.get('slow_start.duration_seconds'));
  const idleTimeout = seconds(attributes.loadBalancer?.get('idle_timeout.timeout_seconds'));
  return {
    interval: seconds(group.HealthCheckIntervalSeconds) ?? 30_000,
    timeout: seconds(group.HealthCheckTimeoutSeconds) ?? 5_000,
    unhealthyThreshold: group.UnhealthyThresholdCount ?? 2,
    healthyThreshold: group.HealthyThresholdCount ?? 5,
    ...(deregistrationDelay !== undefined ? { deregistrationDelay } : {}),
    ...(slowStart !== undefined ? { slowStart } : {}),
    ...(idleTimeout !== undefined ? { idleTimeout } : {}),
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
