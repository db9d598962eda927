import { BlockedError } from '../../errors.js';
import type { HostStatus } from '../../protocol/results.js';
import { mapLimit } from '../../map-limit.js';
import { SUMMARY_ABOVE } from '../../verify/render.js';
import { targetJson, type TargetJson } from '../target-json.js';
import { fleetLeaseStore } from '../with-fleet-lease.js';
import { renderLease, summarizeLease } from '../lease-report.js';
import { open, hostError, type FleetFlags } from '../open-fleet.js';
export async function runStatus(flags: FleetFlags & { verbose?: boolean }): Promise<void> {
  const { out, config, hosts, connections } = await open(flags);
  try {
    const balancer = await connections.balancer();
    const states = await balancer.states(config.hosts.map((h) => h.target));
    const store = await fleetLeaseStore(config, connections);
    const lease = summarizeLease(await store.read().finally(() => store.close?.()));
    const rows = await mapLimit(hosts, 16, async (host) => {
      try {
        return {
          host: host.name,
          status: await (await connections.agent(host)).run('status', {}),
          target: targetJson(host.target, states.get(host.target)),
        };
      } catch (error) {
        return {
          host: host.name,
          error: hostError(host.name, error),
          target: targetJson(host.target, states.get(host.target)),
        };
      }
    });
    const lines = rows.map((r) => {
      if ('error' in r) return { host: r.host, line: unreachableLine(r.host, r.error, r.target) };
      const s = r.status;
      const lock = s.lock.locked
        ? `locked by ${s.lock.holder?.what ?? '?'} since ${s.lock.holder?.since ?? '?'}`
        : 'unlocked';
      const drain = s.draining
        ? `DRAINED by ${s.draining.by} until ${s.draining.until}`
        : 'not drained';
      const line = `${r.host}: release ${s.release ?? '-'}${composeSummary(s.compose)} (previous ${s.previous ?? '-'}), ${lock}, ${drain}, balancer ${balancerView(r.target)}; watchdog ${watchdogSummary(s.watchdog)}${killedSummary(s.lastStop)}`;
      return {
        host: r.host,
        line,
        ...(settled(s, r.target.inRotation) && { release: s.release ?? '-' }),
      };
    });
    for (const line of renderStatus(lines, flags.verbose === true)) out.text(line);
    for (const line of renderLease(lease)) out.text(line);
    out.result(
      rows.every((r) => !('error' in r)),
      {
        lease,
        hosts: rows.map((r) =>
          'error' in r
            ? { ...r, reachable: false }
            : { ...r, reachable: true, status: statusJson(r.status) },
        ),
      },
    );
    const unreachable = rows.filter((r) => 'error' in r).map((r) => r.host);
    if (unreachable.length) throw new BlockedError(`unreachable: ${unreachable.join(', ')}`);
  } finally {
    await connections.close();
  }
}

/** `healthy (in rotation)`, with each balancer's view by its name when there are several */
function balancerView(t: TargetJson): string {
  const views = t.balancers ? ` [${t.reason ?? ''}]` : '';
  const rotation =
    t.inRotation === null ? '' : t.inRotation ? ' (in rotation)' : ' (out of rotation)';
  return `${t.state}${rotation}${views}`;
}

/**
 * An unreachable host keeps the balancer's view of it, as `--json` and
 * `deploy verify` do: a host that cannot be asked may still be in rotation.
 */
export function unreachableLine(
  host: string,
  error: string | undefined,
  target: TargetJson,
): string {
  return `${host}: unreachable: ${error ?? '?'}; balancer ${balancerView(target)}`;
}

/** a host with nothing to say: unlocked, not drained, not out of rotation, no watchdog give-up, a clean last stop */
function settled(s: HostStatus, inRotation: boolean | null): boolean {
  const services = (s.watchdog?.services ?? {}) as Record<string, { gaveUp?: boolean }>;
  return (
    !s.lock.locked &&
    !s.draining &&
    inRotation !== false &&
    (s.lastStop?.killed.length ?? 0) === 0 &&
    !Object.values(services).some((m) => m.gaveUp)
  );
}

/**
 * One line per host; over SUMMARY_ABOVE hosts (unless `full`, `-v`) the
 * settled ones are counted, a line per release, and only the others get
 * their line.
 */
export function renderStatus(
  lines: readonly { readonly host: string; readonly line: string; readonly release?: string }[],
  full: boolean,
): string[] {
  if (full || lines.length <= SUMMARY_ABOVE) return lines.map((l) => l.line);
  const byRelease = new Map<string, number>();
  for (const l of lines)
    if (l.release !== undefined) byRelease.set(l.release, (byRelease.get(l.release) ?? 0) + 1);
  const n = (k: number) => `${k} host${k === 1 ? '' : 's'}`;
  return [
    ...[...byRelease].map(
      ([release, k]) => `✓ ${n(k)}: release ${release}, unlocked, not drained, in rotation`,
    ),
    '(every host: deploy status -v, or --json)',
    ...lines.filter((l) => l.release === undefined).map((l) => l.line),
  ];
}

/** `app healthy, worker unhealthy (2 restarts, gave up)` from the host's watchdog.json */
function watchdogSummary(state: Readonly<Record<string, unknown>> | null): string {
  const services = (state?.services ?? undefined) as
    | Record<string, { trigger?: { health?: string }; restarts?: unknown[]; gaveUp?: boolean }>
    | undefined;
  if (!services || Object.keys(services).length === 0) return 'has not run yet';
  return Object.entries(services)
    .map(([name, m]) => {
      const restarts = m.restarts?.length ?? 0;
      const extra = [
        restarts ? `${restarts} restart${restarts === 1 ? '' : 's'}` : '',
        m.gaveUp ? 'gave up' : '',
      ]
        .filter(Boolean)
        .join(', ');
      return `${name} ${m.trigger?.health ?? 'unknown'}${extra ? ` (${extra})` : ''}`;
    })
    .join(', ');
}

/** `; last stop (r2, 2026-…): app needed SIGKILL`, or nothing when the last stop was clean */
export function killedSummary(last: HostStatus['lastStop']): string {
  if (!last || last.killed.length === 0) return '';
  return `; last stop (${last.release}, ${last.at}): ${last.killed.join(', ')} needed SIGKILL`;
}

/** ` compose.yml sha256 1a2b3c4d5e6f` (the first 12), or why no compose command works here */
function composeSummary(compose: HostStatus['compose']): string {
  if (!compose) return '';
  const hash = ` compose.yml sha256 ${compose.sha256?.slice(0, 12) ?? '-'}`;
  return 'error' in compose ? `${hash} [${compose.error}]` : hash;
}

/** The host's status for --json: the watchdog's services as a list, since their names are data. */
export function statusJson(s: HostStatus): Record<string, unknown> {
  const services = s.watchdog?.services as Record<string, object> | undefined;
  if (!s.watchdog || !services) return { ...s };
  return {
    ...s,
    watchdog: {
      ...s.watchdog,
      services: Object.entries(services).map(([service, memory]) => ({ service, ...memory })),
    },
  };
}
