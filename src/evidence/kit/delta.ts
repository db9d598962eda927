import type { Counts, FailureKind, WindowCounts } from './counts.js';

/**
 * Counters read at a window's start and end. They only grow, unless the
 * process holding them restarted (a balancer's reload, a service restart) or a
 * server was removed and added again: then end < start for some counter, or
 * the process differs, and the window's true count is unknown. What was
 * counted since the reset is a lower bound, reported as one — never a
 * negative difference, never a silent zero.
 */

export interface CounterReading {
  /** what identifies the process holding the counters (pid and start time) */
  readonly epoch: string;
  readonly requests: number;
  readonly kinds: Readonly<Partial<Record<FailureKind, number>>>;
  readonly retried?: number;
  readonly latencyMs?: number;
}

export function windowDelta(
  start: CounterReading,
  end: CounterReading,
  what: string,
): WindowCounts {
  const since = readingCounts(end, end.kinds, end.requests, end.retried);
  if (start.epoch !== end.epoch)
    return { kind: 'reset', since, reason: `${what}: counters restarted (a reload or restart)` };
  const kinds: Partial<Record<FailureKind, number>> = {};
  const shrunk: string[] = [];
  for (const [kind, n] of Object.entries(end.kinds) as [FailureKind, number][]) {
    const d = n - (start.kinds[kind] ?? 0);
    if (d < 0) shrunk.push(kind);
    kinds[kind] = d;
  }
  const requests = end.requests - start.requests;
  if (requests < 0) shrunk.push('requests');
  const retried = end.retried !== undefined ? end.retried - (start.retried ?? 0) : undefined;
  if (retried !== undefined && retried < 0) shrunk.push('retries');
  if (shrunk.length > 0)
    return {
      kind: 'reset',
      since,
      reason: `${what}: counters went back (${shrunk.join(', ')}): cleared, or the server was re-added`,
    };
  return { kind: 'counted', counts: readingCounts(end, kinds, requests, retried) };
}

function readingCounts(
  end: CounterReading,
  kinds: Partial<Record<FailureKind, number>>,
  requests: number,
  retried: number | undefined,
): Counts {
  const failed = Object.values(kinds).reduce((s, n) => s + n, 0);
  return {
    requests,
    failed,
    kinds,
    ...(retried !== undefined && { retried }),
    ...(end.latencyMs !== undefined && { latencyMs: end.latencyMs }),
  };
}
