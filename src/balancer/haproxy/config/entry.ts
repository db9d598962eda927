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
import { haproxyNames } from './rules.js';

const schema = z.strictObject({
  kind: z.literal('haproxy'),
  socket: text(
    'HAProxy runtime API: a unix socket path (on the ssh host, when ssh is set) or tcp://host:port',
  ),
  ssh: balancerSshField(),
  backend: text('the backend whose servers are the hosts'),
  config: text(
    "haproxy's config file, read for inter and timeout check, which the runtime API does not report",
  ).optional(),
  ...optionalHealthCheckFields(),
  ...commonFields(),
});

export interface HaproxyBalancerConfig extends BalancerBase {
  readonly kind: 'haproxy';
  /** the runtime API and config file are on this host, spoken through SSH (stream-local forwarding) */
  readonly ssh?: BalancerSsh;
  /** unix socket path or `tcp://host:port` */
  readonly socket: string;
  readonly backend: string;
  /**
   * the haproxy config file (optional): the runtime API reports rise and fall
   * but not `inter` or `timeout check`, so settings() reads those from here
   */
  readonly config?: string;
}

/** An HAProxy backend, driven through its runtime API, in deploy.yml. */
export const haproxyConfig: KindConfig<typeof schema, HaproxyBalancerConfig> = {
  schema,
  normalize: (raw, local) => ({
    kind: 'haproxy',
    socket: raw.socket,
    backend: raw.backend,
    ...(raw.ssh !== undefined && { ssh: balancerSsh(raw.ssh) }),
    // a path on the balancer's host is not resolved against deploy.yml's directory
    ...(raw.config !== undefined && {
      config: raw.ssh !== undefined ? raw.config : local(raw.config),
    }),
    ...optionalHealthCheck(raw),
  }),
  serialize: (b) => ({
    kind: 'haproxy',
    socket: b.socket,
    backend: b.backend,
    ...(b.ssh !== undefined && { ssh: { ...b.ssh } }),
    ...(b.config !== undefined && { config: b.config }),
    ...optionalHealthCheckDocument(b.healthCheck),
  }),
  defaultName: (b) =>
    typeof b.socket === 'string' ? `haproxy:${sshPrefix(b.ssh)}${b.socket}` : undefined,
  rules: [haproxyNames],
  countsPerHost: true,
  soft404: 'HAProxy with http-check disable-on-404',
};
