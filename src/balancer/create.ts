import type { BalancerEntry, Config } from '../config/types.js';
import type { Balancer, BalancerDeps } from './balancer.js';
import { kindOf } from './kinds.js';
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
  return (await kindOf(entry)).create(entry, deps);
}
