import { ApiError } from './registrations.js';

/**
 * What the lab's target group does differently behind a Network Load
 * Balancer, each from the Elastic Load Balancing API Reference (2015-12-01).
 * The lab's HAProxy still checks over HTTP; the group answers as an NLB's
 * does (docs/lab.md says so).
 */

export type GroupType = 'application' | 'network';

export const TERMINATION = 'deregistration_delay.connection_termination.enabled';

/**
 * CreateTargetGroup, Protocol: "For Network Load Balancers, the supported
 * protocols are TCP, TLS, UDP, or TCP_UDP"; HealthCheckProtocol: "For
 * Network Load Balancers and Gateway Load Balancers, the default is TCP"
 * (and a TCP check has no HealthCheckPath).
 */
export function protocolFields(type: GroupType): Record<string, string> {
  return type === 'network'
    ? { Protocol: 'TCP', HealthCheckProtocol: 'TCP' }
    : { Protocol: 'HTTP', HealthCheckProtocol: 'HTTP', HealthCheckPath: '/health' };
}

/**
 * The attributes a new group holds. TargetGroupAttribute: slow_start is
 * "supported only if the load balancer is an Application Load Balancer";
 * deregistration_delay.connection_termination.enabled is "supported only by
 * Network Load Balancers", "The value is true or false. The default is false."
 */
export function typeAttributes(type: GroupType): [string, string][] {
  return type === 'network' ? [[TERMINATION, 'false']] : [['slow_start.duration_seconds', '0']];
}

/**
 * ModifyTargetGroupAttributes of an attribute the group's type does not
 * support: InvalidConfigurationRequest ("The requested configuration is not
 * valid", HTTP 400, the action's Errors); a termination value other than
 * true or false: ValidationError.
 */
export function checkTypeAttributes(
  type: GroupType,
  list: readonly Record<string, string>[],
): void {
  for (const a of list) {
    const albOnly = a.Key === 'slow_start.duration_seconds';
    if ((type === 'network' && albOnly) || (type === 'application' && a.Key === TERMINATION))
      throw new ApiError(
        'InvalidConfigurationRequest',
        `The attribute '${a.Key}' is not supported for a${type === 'network' ? ' Network' : 'n Application'} Load Balancer's target group`,
      );
    if (a.Key === TERMINATION && a.Value !== 'true' && a.Value !== 'false')
      throw new ApiError('ValidationError', `The value of '${TERMINATION}' must be true or false`);
  }
}

/**
 * TargetGroupAttribute, deregistration_delay.connection_termination.enabled:
 * "Indicates whether the load balancer terminates connections at the end of
 * the deregistration timeout." Only an NLB's group holds it.
 */
export function resetsAtDelayEnd(attributes: ReadonlyMap<string, string>): boolean {
  return attributes.get(TERMINATION) === 'true';
}

/** DescribeLoadBalancers, LoadBalancer.Type: "application", "network" (the ARN says it too: app/, net/). */
export function loadBalancerPath(type: GroupType): string {
  return type === 'network' ? 'net' : 'app';
}
