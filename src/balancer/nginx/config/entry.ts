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

const schema = z.strictObject({
  kind: z.literal('nginx'),
  config: text(
    "the file that holds the upstream block; handoff rewrites its server lines (marks one 'down'), so it should own it",
  ),
  upstream: text('the upstream whose server lines are the hosts (hosts[].target: ADDRESS:PORT)'),
  main_config: text(
    "nginx's main config, given to nginx -c for its test and reload, and read for its pid file and worker_shutdown_timeout (default /etc/nginx/nginx.conf)",
  ).optional(),
  ...optionalHealthCheckFields(),
  ...commonFields(),
});

export interface NginxBalancerConfig extends BalancerBase {
  readonly kind: 'nginx';
  /** the file that holds the upstream block, whose server lines a drain marks `down` */
  readonly config: string;
  readonly upstream: string;
  /** nginx's main config (`nginx -c`); absent: nginx's own default */
  readonly mainConfig?: string;
}

/** An nginx upstream, drained by a `down` server line and a graceful reload, in deploy.yml. */
export const nginxConfig: KindConfig<typeof schema, NginxBalancerConfig> = {
  schema,
  normalize: (raw, local) => ({
    kind: 'nginx',
    config: local(raw.config),
    upstream: raw.upstream,
    ...(raw.main_config !== undefined && { mainConfig: local(raw.main_config) }),
    ...optionalHealthCheck(raw),
  }),
  serialize: (b) => ({
    kind: 'nginx',
    config: b.config,
    upstream: b.upstream,
    ...(b.mainConfig !== undefined && { main_config: b.mainConfig }),
    ...optionalHealthCheckDocument(b.healthCheck),
  }),
  defaultName: (b) => (typeof b.upstream === 'string' ? `nginx:${b.upstream}` : undefined),
  /**
   * Open-source nginx has no active health checks: a host's 503 never takes it
   * out, only a `down` server line does. With drain.method health a rollout
   * would wait for a drain that never comes.
   */
  noHealthDrain:
    "nginx has no active health checks, so a host's 503 never takes it out: set drain.method deregister (a drain marks its server line down and reloads nginx)",
};
