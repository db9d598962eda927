import { BlockedError } from '../../errors.js';
import { mapLimit } from '../../map-limit.js';
import {
  mixedReleases,
  partialReleases,
  renderReleases,
  type HostReleases,
} from './releases-report.js';
import { open, messageOf, type FleetFlags } from '../open-fleet.js';

/** `deploy releases`: what each host has under releases/, current and previous. */
export async function runReleases(flags: FleetFlags): Promise<void> {
  const { out, hosts, connections } = await open(flags);
  try {
    const rows = await mapLimit(hosts, 16, async (host): Promise<HostReleases> => {
      try {
        const agent = await connections.agent(host);
        return { host: host.name, inventory: await agent.run('releases', {}) };
      } catch (error) {
        return { host: host.name, error: messageOf(error) };
      }
    });
    out.text(renderReleases(rows));
    const unreachable = rows.filter((r) => 'error' in r).map((r) => r.host);
    out.result(unreachable.length === 0, {
      hosts: rows,
      partial: partialReleases(rows),
      mixed: mixedReleases(rows),
    });
    if (unreachable.length) throw new BlockedError(`unreachable: ${unreachable.join(', ')}`);
  } finally {
    await connections.close();
  }
}
