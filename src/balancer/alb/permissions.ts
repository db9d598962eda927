/** The ELBv2 actions the ALB adapter calls; each needs the IAM permission of the same name. */
export type AlbAction =
  | 'DescribeTargetGroups'
  | 'DescribeTargetGroupAttributes'
  | 'DescribeLoadBalancerAttributes'
  | 'DescribeTargetHealth'
  | 'RegisterTargets'
  | 'DeregisterTargets'
  | 'ModifyTargetGroup'
  | 'ModifyTargetGroupAttributes';

export function iamPermission(action: AlbAction): string {
  return `elasticloadbalancing:${action}`;
}
