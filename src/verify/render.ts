import type { FleetVerification } from './fleet.js';

/** host × service: ✓/✗, the release that answers, latency, code; then the balancer's view of the target. */
export function renderFleetVerification(v: FleetVerification): string {
  const rows: string[][] = [['host', 'service', 'ok', 'release', 'latency', 'code']];
  for (const h of v.hosts) {
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
  const targets = v.hosts.map((h) => {
    const b = h.balancer;
    const state = b
      ? `${b.state}${b.inRotation === null ? '' : b.inRotation ? ', in rotation' : ', OUT of rotation'}${b.reason ? ` (${b.reason})` : ''}`
      : 'no balancer view';
    return `${h.host.padEnd(widths[0] ?? 0)}  target ${h.target}: ${state}`;
  });
  // an unreachable host's reason is the command's error line: not printed twice
  const errors = v.hosts.filter((h) => h.error && h.reachable).map((h) => `${h.host}: ${h.error}`);
  return [...table, '', ...targets, ...(errors.length ? ['', ...errors] : [])].join('\n');
}
