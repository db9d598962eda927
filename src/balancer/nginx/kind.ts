import type { NginxBalancerConfig } from './config/entry.js';
import { UsageError } from '../../errors.js';
import type { BalancerKind } from '../kind.js';

const noInfra =
  "balancer.kind nginx has no health checks to apply: its numbers are worker_shutdown_timeout and the upstream's keepalive_timeout in nginx's own config (docs/balancers.md)";

export const nginx: BalancerKind<NginxBalancerConfig> = {
  async create(entry) {
    const { NginxBalancer } = await import('./adapter.js');
    return new NginxBalancer(entry);
  },
  infra: () => Promise.reject(new UsageError(noInfra)),
  noInfra,
};
