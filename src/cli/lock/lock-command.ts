import { BlockedError } from '../../errors.js';
import { mapLimit } from '../../map-limit.js';
import { open, hostError, type FleetFlags } from '../open-fleet.js';
/** `deploy lock status|release` from the operator's machine. */
export async function runLockFleet(
  flags: FleetFlags & { force?: boolean },
  action: 'status' | 'release',
): Promise<void> {
  const { out, hosts, connections } = await open(flags);
  try {
    const rows = await mapLimit(hosts, 16, async (host) => {
      try {
        const agent = await connections.agent(host);
        if (action === 'release') {
          const r = await agent.run('lock-release', flags.force ? { force: true } : {});
          return {
            host: host.name,
            ok: true,
            text: r.released ? 'released' : (r.reason ?? 'not locked'),
          };
        }
        const s = await agent.run('status', {});
        const h = s.lock.holder;
        return {
          host: host.name,
          ok: true,
          text: s.lock.locked
            ? `held by ${h?.what ?? 'unknown'}${h ? ` (pid ${h.pid}) since ${h.since}${h.message ? `: ${h.message}` : ''}` : ''}`
            : 'free',
        };
      } catch (error) {
        return { host: host.name, ok: false, text: hostError(host.name, error) };
      }
    });
    for (const r of rows) out.text(`${r.ok ? '' : '✗ '}${r.host}: ${r.text}`);
    out.result(
      rows.every((r) => r.ok),
      { hosts: rows },
    );
    const failed = rows.filter((r) => !r.ok);
    if (failed.length > 0)
      throw new BlockedError(`lock ${action} failed on ${failed.map((r) => r.host).join(', ')}`);
  } finally {
    await connections.close();
  }
}
