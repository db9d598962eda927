import { hostRelease, type FleetVerification } from './fleet.js';

type HostRow = FleetVerification['hosts'][number];

/** above this many hosts, one line per state and only the failing hosts' rows */
export const SUMMARY_ABOVE = 20;

/** a host's state in the fleet `v`: a host on another release than the fleet's is not ok */
function stateOf(h: HostRow, v: FleetVerification): string {
  if (!h.reachable) return 'unreachable';
  if (!h.report) return 'failed';
  if (!h.report.ok) return 'a service fails its check';
  const other = v.otherRelease.find((o) => o.host === h.host);
  if (other) return `on another release than the fleet's ${v.release ?? ''}`;
  if (h.balancer?.state === 'mixed') return 'out of rotation on some balancers';
  if (h.balancer?.inRotation === false) return 'out of rotation';
  return 'ok';
}

/** `✓ 498 hosts: every service answers, in rotation`, then a line per way of failing */
function summary(v: FleetVerification): string[] {
  const counts = new Map<string, number>();
  for (const h of v.hosts) counts.set(stateOf(h, v), (counts.get(stateOf(h, v)) ?? 0) + 1);
  const n = (k: number) => `${k} host${k === 1 ? '' : 's'}`;
  const ok = counts.get('ok');
  counts.delete('ok');
  return [
    ...(ok ? [`✓ ${n(ok)}: every service answers, in rotation`] : []),
    ...[...counts].map(([state, k]) => `✗ ${n(k)}: ${state}`),
  ];
}

/**
 * host × service: ✓/✗, the release that answers, latency, code; then the
 * balancer's view of the target. Over SUMMARY_ABOVE hosts (unless `full`,
 * `-v`), a line per state first, and the rows of the failing hosts only.
 */
export function renderFleetVerification(
  v: FleetVerification,
  options: { full?: boolean } = {},
): string {
  const full = options.full === true || v.hosts.length <= SUMMARY_ABOVE;
  const hosts = full ? v.hosts : v.hosts.filter((h) => stateOf(h, v) !== 'ok');
  const head = full
    ? []
    : [...summary(v), '(every host: deploy verify -v, or --json)', ...(hosts.length ? [''] : [])];
  if (hosts.length === 0) return head.join('\n');
  const rows: string[][] = [['host', 'service', 'ok', 'release', 'latency', 'code']];
  for (const h of hosts) {
    if (!h.report) {
      rows.push([h.host, '-', '✗', '-', '-', h.reachable ? 'failed' : 'unreachable']);
      continue;
    }
    for (const s of h.report.services) {
      rows.push([
        h.host,
        s.name,
        s.ok ? '✓' : '✗',
        // known only for a service that names it (x-release)
        s.release ?? '-',
        `${s.latency_ms}ms`,
        s.code + (s.detail ? ` (${s.detail})` : '') + (s.draining ? ' (draining)' : ''),
      ]);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const table = rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  const targets = hosts.map((h) => {
    const b = h.balancer;
    const state = b
      ? `${b.state}${b.inRotation === null ? '' : b.inRotation ? ', in rotation' : ', OUT of rotation'}${b.reason ? ` (${b.reason})` : ''}`
      : 'no balancer view';
    return `${h.host.padEnd(widths[0] ?? 0)}  target ${h.target}: ${state}`;
  });
  // an unreachable host's reason is the command's error line: not printed twice
  const errors = hosts.filter((h) => h.error && h.reachable).map((h) => `${h.host}: ${h.error}`);
  const behind = otherReleaseLines(v);
  return [
    ...head,
    ...table,
    '',
    ...targets,
    ...(errors.length ? ['', ...errors] : []),
    ...(behind.length ? ['', ...behind] : []),
  ].join('\n');
}

/** `web-17 answers r41, the fleet r42 (19 of 20 hosts): …`, one line per such host */
function otherReleaseLines(v: FleetVerification): string[] {
  const on = v.hosts.filter((h) => hostRelease(h) === v.release).length;
  return v.otherRelease.map(
    (o) =>
      `${o.host} answers ${o.release}, the fleet ${v.release ?? '?'} (${on} of ${v.hosts.length} hosts): a host that missed a rollout; 'deploy rollout --release ${v.release ?? 'RELEASE'} --hosts ${o.host}' brings it level`,
  );
}
