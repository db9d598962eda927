import * as z from 'zod';
import {
  balancerSsh,
  balancerSshField,
  commonFields,
  optionalHealthCheckDocument,
  optionalHealthCheck,
  optionalHealthCheckFields,
  sshPrefix,
  type BalancerBase,
  type BalancerSsh,
  type KindConfig,
} from '../../../config/kit/balancer-entry.js';
import { text } from '../../../config/kit/fields.js';

const schema = z.strictObject({
  kind: z.literal('nginx'),
  config: text(
    "the file that holds the upstream block; handoff rewrites its server lines (marks one 'down'), so it should own it",
  ),
  upstream: text('the upstream whose server lines are the hosts (hosts[].target: ADDRESS:PORT)'),
  ssh: balancerSshField(),
  main_config: text(
    "nginx's main config, given to nginx -c for its test and reload, and read for its pid file and worker_shutdown_timeout (default /etc/nginx/nginx.conf)",
  ).optional(),
  ...optionalHealthCheckFields(),
  ...commonFields(),
});

export interface NginxBalancerConfig extends BalancerBase {
  readonly kind: 'nginx';
  /** its files are on this host, and nginx -t and the reload run there, over SSH */
  readonly ssh?: BalancerSsh;
  /** the file that holds the upstream block, whose server lines a drain marks `down` */
  readonly config: string;
  readonly upstream: string;
  /** nginx's main config (`nginx -c`); absent: nginx's own default */
  readonly mainConfig?: string;
}

/** An nginx upstream, drained by a `down` server line and a graceful reload, in deploy.yml. */
export const nginxConfig: KindConfig<typeof schema, NginxBalancerConfig> = {
  schema,
  normalize: (raw, local) => {
    // paths on the balancer's host are not resolved against deploy.yml's directory
    const path = raw.ssh !== undefined ? (p: string) => p : local;
    return {
      kind: 'nginx',
      ...(raw.ssh !== undefined && { ssh: balancerSsh(raw.ssh) }),
      config: path(raw.config),
      upstream: raw.upstream,
      ...(raw.main_config !== undefined && { mainConfig: path(raw.main_config) }),
      ...optionalHealthCheck(raw),
    };
  },
  serialize: (b) => ({
    kind: 'nginx',
    ...(b.ssh !== undefined && { ssh: { ...b.ssh } }),
    config: b.config,
    upstream: b.upstream,
    ...(b.mainConfig !== undefined && { main_config: b.mainConfig }),
    ...optionalHealthCheckDocument(b.healthCheck),
  }),
  defaultName: (b) =>
    typeof b.upstream === 'string' ? `nginx:${sshPrefix(b.ssh)}${b.upstream}` : undefined,
  /**
   * Open-source nginx has no active health checks: a host's 503 never takes it
   * out, only a `down` server line does. With drain.method health a rollout
   * would wait for a drain that never comes.
   */
  noHealthDrain:
    "nginx has no active health checks, so a host's 503 never takes it out: set drain.method deregister (a drain marks its server line down and reloads nginx)",
  no404Drain: 'nginx has no active health checks',
};
