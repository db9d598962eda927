import { addWindows, type WindowCounts } from './counts.js';

/**
 * A balancer's own row beside its hosts': what it counted that is nobody's
 * host (a backend's requests no server took, its own failures).
 */
export const BACKEND_OWN = '(backend)';

/**
 * The balancer in all: its own row (BACKEND_OWN), when it has one, counts each request once, those no server
 * took included (a server's attempts count a retried request twice), so the
 * requests are its; the failures are every server's and its own.
 */
export function totalOf(windows: ReadonlyMap<string, WindowCounts>): WindowCounts {
  let total: WindowCounts = { kind: 'counted', counts: { requests: 0, failed: 0 } };
  const own = windows.get(BACKEND_OWN);
  for (const [key, w] of windows)
    total = addWindows(total, own === undefined || key === BACKEND_OWN ? w : withoutRequests(w));
  return total;
}

function withoutRequests(w: WindowCounts): WindowCounts {
  if (w.kind === 'unread') return w;
  if (w.kind === 'counted') return { kind: 'counted', counts: { ...w.counts, requests: 0 } };
  return { ...w, since: { ...w.since, requests: 0 } };
}
