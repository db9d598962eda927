import type { Clock } from '../../../clock.js';
import type { WindowCounts } from '../../../evidence/kit/counts.js';
import { BACKEND_OWN } from '../../../evidence/kit/total.js';
import { windowDelta } from '../../../evidence/kit/delta.js';
import type { HaproxyCounters } from './counters.js';
import type { CountWindow, EvidenceSource } from '../../../evidence/kit/source.js';

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
