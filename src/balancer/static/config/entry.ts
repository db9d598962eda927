import * as z from 'zod';
import {
  commonFields,
  healthCheckDocument,
  healthCheckFields,
  healthCheckSettings,
  type BalancerBase,
  type HealthCheckSettings,
  type KindConfig,
} from '../../../config/kit/balancer-entry.js';

const schema = z.strictObject({
  kind: z.literal('static'),
  ...healthCheckFields(),
  ...commonFields(),
});

export interface StaticBalancerConfig extends BalancerBase {
  readonly kind: 'static';
  readonly healthCheck: HealthCheckSettings;
}

/** A balancer with no API: deploy.yml gives its health-check settings, and nothing confirms a drain. */
export const staticConfig: KindConfig<typeof schema, StaticBalancerConfig> = {
  schema,
  normalize: (raw) => ({ kind: 'static', healthCheck: healthCheckSettings(raw) }),
  serialize: (b) => ({ kind: 'static', ...healthCheckDocument(b.healthCheck) }),
  defaultName: () => 'static',
  blind: true,
  starter: `balancer:
  # static: the health-check settings of a balancer handoff cannot query.
  # Copy them from the balancer; a host is out of rotation after at most
  # interval × unhealthy_threshold.
  kind: static
  interval: 5s
  timeout: 2s
  unhealthy_threshold: 2
  healthy_threshold: 2
`,
};
