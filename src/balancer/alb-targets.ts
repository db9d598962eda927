import type { TargetHealthDescription } from '@aws-sdk/client-elastic-load-balancing-v2';

/**
 * A target as AWS keys it: (Id, Port). `hosts[].target` is `i-0abc` or
 * `10.0.1.11`, optionally with `:port` when the target is registered on a port
 * override. Without a port it means the registration on the group's port:
 *
 * - RegisterTargets (API Reference): "By default, the load balancer routes
 *   requests to registered targets using the protocol and port for the target
 *   group. Alternatively, you can override the port for a target when you
 *   register it."
 * - DeregisterTargets (API Reference): "If you specified a port override when
 *   you registered a target, you must specify both the target ID and the port
 *   when you deregister it." and "If the specified target does not exist, the
 *   action returns successfully." — a deregistration that names the wrong port
 *   is a silent no-op, so every call names the port.
 */
export interface TargetKey {
  readonly Id: string;
  /** the port written in hosts[].target, else the group's; undefined only for a group with no port (Lambda) */
  readonly Port?: number;
}

export function parseTarget(target: string): { readonly id: string; readonly port?: number } {
  const match = /^([^:]+):(\d{1,5})$/.exec(target);
  return match?.[1] !== undefined ? { id: match[1], port: Number(match[2]) } : { id: target };
}

/** What RegisterTargets / DeregisterTargets are sent for this target. */
export function targetKey(target: string, groupPort: number | undefined): TargetKey {
  const { id, port } = parseTarget(target);
  const Port = port ?? groupPort;
  return Port === undefined ? { Id: id } : { Id: id, Port };
}

/** Whether DescribeTargetHealth's registration is the one this key names. */
export function isRegistration(key: TargetKey, d: TargetHealthDescription): boolean {
  return d.Target?.Id === key.Id && (key.Port === undefined || d.Target.Port === key.Port);
}

/** The ports the key's instance or address is registered on besides the key's own. */
export function otherPorts(
  key: TargetKey,
  descriptions: readonly TargetHealthDescription[],
): number[] {
  const ports = descriptions
    .filter((d) => d.Target?.Id === key.Id && d.Target.Port !== undefined)
    .map((d) => d.Target?.Port as number)
    .filter((p) => p !== key.Port);
  return [...new Set(ports)].sort((a, b) => a - b);
}
