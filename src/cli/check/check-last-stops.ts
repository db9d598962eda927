import { BlockedError, messageOf } from '../../errors.js';
import type { Config } from '../../config/types.js';
import { mapLimit } from '../../map-limit.js';
import type { LastStop } from '../../protocol/results.js';
import type { Output } from '../output.js';

/** One host's last stop as `deploy check --live` sees it, or why it cannot. */
export type HostLastStop =
  | { readonly host: string; readonly lastStop: LastStop | null }
  | { readonly host: string; readonly error: string };

/** How check --live reaches the hosts: the status of each, by name. */
export type ReadLastStop = (host: string) => Promise<LastStop | null>;

/**
 * The hosts' own record of their last stop: a service that needed SIGKILL
 * ignores SIGTERM (a process that is PID 1 in a container without
 * `init: true` and installs no handler), so every stop cuts its requests,
 * whatever the timing says. A host that cannot be reached is named, not failed.
 */
export async function readLastStops(config: Config, read: ReadLastStop): Promise<HostLastStop[]> {
  return mapLimit(config.hosts, 16, async (h) => {
    try {
      return { host: h.name, lastStop: await read(h.name) };
    } catch (error) {
      return { host: h.name, error: messageOf(error) };
    }
  });
}

/** the services that needed SIGKILL, one entry a host */
export function killedAtLastStop(
  stops: readonly HostLastStop[],
): { host: string; last: LastStop }[] {
  return stops.flatMap((s) =>
    'lastStop' in s && s.lastStop && s.lastStop.killed.length > 0
      ? [{ host: s.host, last: s.lastStop }]
      : [],
  );
}

export function renderLastStops(stops: readonly HostLastStop[], out: Output): void {
  const killed = killedAtLastStop(stops);
  const unseen = stops.filter((s) => 'error' in s);
  out.text('');
  out.text('last stop on each host (live):');
  for (const { host, last } of killed)
    out.text(
      `  WARN ${host}: ${last.killed.join(', ')} needed SIGKILL at the last stop (${last.release}, ${last.at}): it ignores SIGTERM, so each stop cuts its requests; give it init: true, or make it exit on SIGTERM`,
    );
  for (const s of unseen) if ('error' in s) out.text(`  ${s.host}: cannot see it: ${s.error}`);
  if (unseen.length === stops.length && stops.length > 0)
    out.text(`  could not read any host's last stop: nothing was checked live`);
  else if (killed.length === 0)
    out.text(
      `  no service needed SIGKILL${unseen.length ? ` on the ${stops.length - unseen.length} host(s) seen` : ''}`,
    );
}

/**
 * `--live` that read nothing must not pass: every host unread is exit 3 (an
 * unreachable host, as everywhere); with `--strict` any host unread is.
 */
export function unreadLive(
  stops: readonly HostLastStop[],
  strict: boolean,
): BlockedError | undefined {
  const unseen = stops.flatMap((s) => ('error' in s ? [s] : []));
  const [first] = unseen;
  if (!first) return undefined;
  if (unseen.length === stops.length)
    return new BlockedError(
      `--live read no host: all ${stops.length} could not be reached (${first.host}: ${first.error}); nothing was checked live`,
    );
  if (!strict) return undefined;
  return new BlockedError(
    `--live --strict: ${unseen.map((s) => s.host).join(', ')} could not be read (${first.error})`,
  );
}
