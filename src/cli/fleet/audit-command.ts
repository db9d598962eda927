import { OperationError } from '../../errors.js';
import { mapLimit } from '../../map-limit.js';
import { mergeAudit, parseSince, renderTimeline } from './audit-timeline.js';
import { open, hostError, type FleetFlags } from '../open-fleet.js';

/**
 * `deploy audit`: every host's audit.jsonl (filtered and bounded on the host)
 * as one timeline, newest last. A host that cannot be read is named and the
 * others are still shown; the command then exits 1.
 */
export async function runAudit(flags: FleetFlags & { since?: string }): Promise<void> {
  const { out, hosts, connections } = await open(flags);
  const since = flags.since === undefined ? undefined : parseSince(flags.since, Date.now());
  try {
    const reads = await mapLimit(hosts, 16, async (host) => {
      try {
        return {
          host: host.name,
          ...(await (
            await connections.agent(host)
          ).run('audit-read', since === undefined ? {} : { since })),
        };
      } catch (error) {
        return { host: host.name, error: hostError(host.name, error) };
      }
    });
    const timeline = mergeAudit(reads.flatMap((r) => ('error' in r ? [] : [r])));
    out.text(
      timeline.length
        ? renderTimeline(timeline)
        : `no audit entries${since ? ` since ${since}` : ''}`,
    );
    const failed = reads.flatMap((r) => ('error' in r ? [r] : []));
    for (const r of reads)
      if (!('error' in r) && r.truncated)
        out.emit({
          level: 'warn',
          event: 'audit.truncated',
          message: 'older entries left out (the agent sends at most 1 MiB); narrow it with --since',
          host: r.host,
        });
    out.result(failed.length === 0, {
      entries: timeline,
      ...(failed.length ? { unreachable: failed } : {}),
    });
    if (failed.length)
      throw new OperationError(
        failed.map((r) => `${r.host}: audit not read: ${r.error}`).join('\n'),
      );
  } finally {
    await connections.close();
  }
}
