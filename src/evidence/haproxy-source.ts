import type { Clock } from '../clock.js';
import type { WindowCounts } from './counts.js';
import { addWindows } from './counts.js';
import { windowDelta } from './delta.js';
import type { HaproxyCounters } from './haproxy-counters.js';
import type { CountWindow, EvidenceSource } from './source.js';

/** the backend's own failures are nobody's host: they are reported under this key */
export const BACKEND_OWN = '(backend)';

/**
 * HAProxy's per-server counters as a source: a window is two snapshots. The
 * reader is injected (readHaproxyCounters over the runtime API in use, a
 * scripted one in tests); `targets` maps a host to its server name.
 */
export class HaproxyCountSource implements EvidenceSource {
  readonly kind = 'balancer';
  readonly label: string;

  constructor(
    /** a snapshot with the readings of `servers` at least */
    private readonly read: (servers: readonly string[]) => Promise<HaproxyCounters>,
    private readonly targets: ReadonlyMap<string, string>,
    private readonly clock: Clock,
    backend: string,
    /** the balancer's name, when there are several */
    name?: string,
  ) {
    this.label = name === undefined ? `haproxy ${backend}` : `${name} (haproxy ${backend})`;
  }

  /**
   * `hosts`: the hosts the window counts (default every target), with the
   * backend's own row: a host's receipt asks for its own server only, which
   * at 2 000 hosts is one difference per read instead of 2 000 for each host.
   */
  async open(hosts?: readonly string[]): Promise<CountWindow> {
    const openedAt = this.clock.now();
    const counted = hosts
      ? hosts.flatMap((h) => {
          const server = this.targets.get(h);
          return server === undefined ? [] : [[h, server] as const];
        })
      : [...this.targets];
    const servers = counted.map(([, server]) => server);
    const start = await this.read(servers);
    return {
      openedAt,
      read: async () => this.delta(counted, start, await this.read(servers)),
    };
  }

  private delta(
    counted: readonly (readonly [string, string])[],
    start: HaproxyCounters,
    end: HaproxyCounters,
  ): ReadonlyMap<string, WindowCounts> {
    const out = new Map<string, WindowCounts>();
    for (const [host, server] of counted) {
      const a = start.servers.get(server);
      const b = end.servers.get(server);
      out.set(
        host,
        a && b
          ? windowDelta(a, b, host)
          : { kind: 'unread', reason: `haproxy has no server ${server} for ${host}` },
      );
    }
    out.set(BACKEND_OWN, windowDelta(start.own, end.own, 'the backend'));
    return out;
  }
}

/**
 * The backend in all: its own row counts each request once, those no server
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
