import { messageOf } from '../errors.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import type { HostConfig } from '../config/types.js';
import { mapLimit } from '../map-limit.js';
import type { PrunedHost, RolloutDeps } from './types.js';

/**
 * After a successful rollout every host keeps its newest `rollout.keep_releases`
 * releases plus current and previous (the agent never removes those). A host
 * that cannot prune is a warning: the release is deployed, the disk is not full yet.
 */
export async function pruneFleet(
  deps: RolloutDeps,
  hosts: readonly HostConfig[],
  agentOf: (host: HostConfig) => HostAgent,
): Promise<PrunedHost[]> {
  const keep = deps.config.rollout.keepReleases;
  const pruned: PrunedHost[] = [];
  await mapLimit(hosts, deps.config.ssh.maxConnections, async (host) => {
    const agent = agentOf(host);
    try {
      const { removed } = await agent.run('prune', { keep });
      pruned.push({ host: host.name, removed });
      if (removed.length > 0)
        deps.log.emit({
          level: 'info',
          event: 'prune',
          host: host.name,
          message: `pruned ${removed.join(', ')} (keeping the newest ${keep}, current and previous)`,
          fields: { removed, keep },
        });
    } catch (error) {
      deps.log.emit({
        level: 'warn',
        event: 'prune',
        host: host.name,
        message: `could not prune old releases: ${messageOf(error)}`,
      });
    }
  });
  // in the plan's order, whichever host answered first
  const order = hosts.map((h) => h.name);
  return pruned.sort((a, b) => order.indexOf(a.host) - order.indexOf(b.host));
}
