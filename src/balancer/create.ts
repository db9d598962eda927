import type { BalancerEntry, Config } from '../config/types.js';
import type { Balancer, BalancerDeps } from './balancer.js';
import { BalancerSet } from './set.js';

/**
 * Every balancer of deploy.yml as one (a set of one when there is one), each
 * knowing the hosts by its own targets. The adapters are imported on demand:
 * the watchdog never talks to a balancer and must not pay for the AWS SDK.
 */
export async function createBalancer(config: Config, deps: BalancerDeps): Promise<BalancerSet> {
  const members = await Promise.all(
    config.balancers.map(async (entry) => ({
      name: entry.name,
      balancer: await createOne(entry, { ...deps, ssh: config.ssh }),
      targets: new Map(
        config.hosts.map((h) => [h.target, entry.targets[h.name] ?? h.target] as const),
      ),
    })),
  );
  return new BalancerSet(members);
}

/** The adapter of one entry's kind. */
export async function createOne(entry: BalancerEntry, deps: BalancerDeps): Promise<Balancer> {
  switch (entry.kind) {
    case 'alb': {
      const { createAlbBalancer } = await import('./alb.js');
      return createAlbBalancer(entry, deps);
    }
    case 'haproxy': {
      const { HaproxyBalancer } = await import('./haproxy/adapter.js');
      return new HaproxyBalancer(entry, {}, deps);
    }
    case 'nginx': {
      const { NginxBalancer } = await import('./nginx/adapter.js');
      return new NginxBalancer(entry);
    }
    case 'static': {
      const { StaticBalancer } = await import('./static.js');
      return new StaticBalancer(entry);
    }
  }
}
