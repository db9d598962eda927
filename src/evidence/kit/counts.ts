/**
 * What every evidence source reports for one target over one window: how many
 * requests it saw and how many of them failed, by kind. A source that cannot
 * tell a window's counts (counters reset in it) says so instead of guessing.
 */

/** Ways a request fails; a source reports the kinds it can tell apart. */
export type FailureKind =
  /** the service answered 5xx */
  | 'http_5xx'
  /** the balancer could not connect to the target */
  | 'connect'
  /** the target closed or reset the connection before answering */
  | 'response'
  /** the balancer had no target to send it to (its own 503) */
  | 'no_server';

export interface Counts {
  readonly requests: number;
  readonly failed: number;
  /** the failures by kind, where the source can tell them apart */
  readonly kinds?: Readonly<Partial<Record<FailureKind, number>>>;
  /** attempts the balancer retried or sent elsewhere: rescued, not failed */
  readonly retried?: number;
  /** mean response time over the source's own recent window, when it has one */
  readonly latencyMs?: number;
}

/** A window's counts, or why they cannot be told. */
export type WindowCounts =
  | { readonly kind: 'counted'; readonly counts: Counts }
  /** counters went back to zero during the window: `since` is what was counted after */
  | { readonly kind: 'reset'; readonly since: Counts; readonly reason: string }
  | { readonly kind: 'unread'; readonly reason: string };

export const noCounts: Counts = { requests: 0, failed: 0 };

export function addCounts(a: Counts, b: Counts): Counts {
  const kinds: Partial<Record<FailureKind, number>> = { ...a.kinds };
  for (const [kind, n] of Object.entries(b.kinds ?? {}) as [FailureKind, number][])
    kinds[kind] = (kinds[kind] ?? 0) + n;
  const retried = (a.retried ?? 0) + (b.retried ?? 0);
  return {
    requests: a.requests + b.requests,
    failed: a.failed + b.failed,
    ...(Object.keys(kinds).length > 0 && { kinds }),
    ...(a.retried !== undefined || b.retried !== undefined ? { retried } : {}),
    ...weightedLatency(a, b),
  };
}

/** mean of two means, weighted by the requests behind each */
function weightedLatency(a: Counts, b: Counts): { latencyMs?: number } {
  const parts = [a, b].filter((c) => c.latencyMs !== undefined && c.requests > 0);
  const requests = parts.reduce((n, c) => n + c.requests, 0);
  if (parts.length === 0 || requests === 0) return {};
  return { latencyMs: parts.reduce((s, c) => s + (c.latencyMs ?? 0) * c.requests, 0) / requests };
}

/** Windows combined: a reset or an unread part makes the whole a lower bound, said. */
export function addWindows(a: WindowCounts, b: WindowCounts): WindowCounts {
  if (a.kind === 'unread') return a;
  if (b.kind === 'unread') return b;
  const counts = addCounts(countsOf(a), countsOf(b));
  if (a.kind === 'counted' && b.kind === 'counted') return { kind: 'counted', counts };
  const reason = [a, b].flatMap((w) => (w.kind === 'reset' ? [w.reason] : [])).join('; ');
  return { kind: 'reset', since: counts, reason };
}

export function countsOf(w: WindowCounts): Counts {
  return w.kind === 'counted' ? w.counts : w.kind === 'reset' ? w.since : noCounts;
}
