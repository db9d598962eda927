import * as z from 'zod';
import {
  commonFields,
  optionalHealthCheckDocument,
  optionalHealthCheck,
  optionalHealthCheckFields,
  type BalancerBase,
  type KindConfig,
} from '../../../config/kit/balancer-entry.js';
import { text } from '../../../config/kit/fields.js';
import { awsRangeProblems } from './ranges.js';

const schema = z.strictObject({
  kind: z.literal('alb'),
  target_group_arn: z
    .string()
    .regex(/^arn:aws[a-z-]*:elasticloadbalancing:/, {
      error: 'must be a target group ARN (arn:aws:elasticloadbalancing:…)',
    })
    .meta({ description: 'the target group the hosts are registered in' }),
  region: text(
    "AWS region of the target group, e.g. eu-west-1; default: the SDK's (AWS_REGION, the profile's region)",
  ).optional(),
  type: z
    .enum(['application', 'network'], { error: 'must be application or network' })
    .optional()
    .meta({
      description:
        "the type of the target group's load balancer, whose value ranges deploy.yml is held to (default: application)",
    }),
  ...optionalHealthCheckFields(),
  ...commonFields(),
});

export interface AlbBalancerConfig extends BalancerBase {
  readonly kind: 'alb';
  readonly targetGroupArn: string;
  /** absent: the SDK's region chain (AWS_REGION, the profile) */
  readonly region?: string;
  /** the load balancer's type (config/ranges.ts); absent: application */
  readonly type?: 'application' | 'network';
}

/** An ELBv2 target group (an ALB's or an NLB's) in deploy.yml. */
export const albConfig: KindConfig<typeof schema, AlbBalancerConfig> = {
  schema,
  normalize: (raw) => ({
    kind: 'alb',
    targetGroupArn: raw.target_group_arn,
    ...(raw.region !== undefined && { region: raw.region }),
    ...(raw.type !== undefined && { type: raw.type }),
    ...optionalHealthCheck(raw),
  }),
  serialize: (b) => ({
    kind: 'alb',
    target_group_arn: b.targetGroupArn,
    ...(b.region !== undefined && { region: b.region }),
    ...(b.type !== undefined && { type: b.type }),
    ...optionalHealthCheckDocument(b.healthCheck),
  }),
  // arn:…:targetgroup/<name>/<id>: the group's name is what the console shows
  defaultName: (b) =>
    typeof b.target_group_arn === 'string'
      ? `alb:${/:targetgroup\/([^/]+)/.exec(b.target_group_arn)?.[1] ?? b.target_group_arn}`
      : undefined,
  rules: [(_doc, e) => awsRangeProblems(e.path, e.b)],
  no404Drain:
    'an ALB or NLB reads 404 as unhealthy like 503, or as healthy when its matcher takes it',
};
