import { readDuration, show } from '../../config/kit/duration.js';
import { UsageError } from '../../errors.js';
import type { AuditEntry } from '../../protocol/results.js';
import { formatMs } from '../../timing/duration.js';

/** One line of the merged timeline: an audit entry and the host it came from. */
export interface TimelineEntry {
  readonly time: string;
  readonly host: string;
  readonly who: string;
  readonly release: string;
  readonly step: string;
  readonly result: string;
  readonly durationMs: number;
  readonly detail?: string;
}

/**
 * `--since 2h` (that long before now) or `--since 2026-11-30T12:00:00Z`: the
 * ISO time the hosts filter on.
 */
export function parseSince(value: string, now: number, flag = '--since'): string {
  const ago = readDuration(value);
  if (ago.ok) return new Date(now - ago.ms).toISOString();
  // a bare date or a date with a time, as Date reads it; nothing looser
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return new Date(ms).toISOString();
  }
  throw new UsageError(
    `${flag} ${show(value)}: give a duration before now (30m, 2h, 48h) or a time (2026-11-30T12:00:00Z)`,
  );
}

/** Every host's entries as one timeline, oldest first and newest last; a tie keeps host order. */
export function mergeAudit(
  perHost: readonly { host: string; entries: readonly AuditEntry[] }[],
): TimelineEntry[] {
  const all = perHost.flatMap(({ host, entries }) =>
    entries.map((e): TimelineEntry => ({
      time: e.start,
      host,
      who: e.who,
      release: e.release,
      step: e.step,
      result: e.result,
      durationMs: e.duration_ms,
      ...(e.detail === undefined ? {} : { detail: e.detail }),
    })),
  );
  return all
    .map((e, i) => ({ e, i, t: Date.parse(e.time) }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map(({ e }) => e);
}

/** Aligned columns: time, host, who, release, step, result, duration (and why, for a failure). */
export function renderTimeline(entries: readonly TimelineEntry[]): string {
  const rows = entries.map((e) => [
    e.time.replace(/\.\d+Z$/, 'Z'),
    e.host,
    e.who,
    e.release || '-',
    e.step,
    e.result,
    formatMs(e.durationMs),
    e.result === 'ok' || !e.detail ? '' : e.detail,
  ]);
  const header = ['time', 'host', 'who', 'release', 'step', 'result', 'duration', ''];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
