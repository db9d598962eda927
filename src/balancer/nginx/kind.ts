import type { NginxBalancerConfig } from './config/entry.js';
import { UsageError } from '../../errors.js';
import type { BalancerKind } from '../kind.js';

const noInfra =
  "balancer.kind nginx has no health checks to apply: its numbers are worker_shutdown_timeout and the upstream's keepalive_timeout in nginx's own config (docs/balancers.md)";

export const nginx: BalancerKind<NginxBalancerConfig> = {
  async create(entry, deps) {
    const { NginxBalancer } = await import('./adapter.js');
    if (!entry.ssh) return new NginxBalancer(entry);
    const [{ BalancerHost }, { sshNginxHost }] = await Promise.all([
      import('../balancer-host.js'),
      import('./ssh-host.js'),
    ]);
    const remote = new BalancerHost(entry.ssh, deps.ssh, entry.upstream);
    const user = entry.ssh.user ?? deps.ssh?.user;
    return new NginxBalancer(entry, sshNginxHost(remote, user === 'root'));
  },
  infra: () => Promise.reject(new UsageError(noInfra)),
  async liveWarnings(config, checked) {
    const { nginxWarnings } = await import('./warnings.js');
    return nginxWarnings(config, checked);
  },
  noInfra,
};
