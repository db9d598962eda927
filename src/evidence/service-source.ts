import { messageOf, OperationError } from '../errors.js';
import type { WindowCounts } from './kit/counts.js';
import type { ServiceReading } from '../protocol/results.js';
import { serviceWindow } from './service-counts.js';
import type { CountWindow, EvidenceSource } from './kit/source.js';

/**
 * `rollout.canary.source: service`: the services' own counts (the health
 * library's countResponses), read on each host by its agent (the
 * `service-counts` operation) from host.state. A window is a reading at its
 * opening and one at each read, compared process by process
 * (service-counts.ts), so any balancer, even one that counts nothing per host, gets a per-host canary.
 */

/** what the source asks of a host: its agent's `service-counts` */
export type ReadHost = (host: string, signal?: AbortSignal) => Promise<ServiceReading>;

export class ServiceCountSource implements EvidenceSource {
  readonly kind = 'service' as const;
  readonly label = "the services' counts";

  constructor(
    private readonly readHost: ReadHost,
    private readonly now: () => number,
  ) {}

  async open(hosts: readonly string[], signal?: AbortSignal): Promise<CountWindow> {
    const openedAt = this.now();
    const start = await this.readAll(hosts, signal);
    const unread = [...start.values()].find((r): r is string => typeof r === 'string');
    // a host unread at the opening has no start: the whole window opens again at the next look
    if (unread !== undefined) throw new OperationError(unread);
    return {
      openedAt,
      read: async (s) => {
        const end = await this.readAll(hosts, s);
        const counts = new Map<string, WindowCounts>();
        for (const host of hosts) {
          const first = start.get(host) as ServiceReading;
          const last = end.get(host);
          counts.set(
            host,
            typeof last === 'string' || last === undefined
              ? { kind: 'unread', reason: last ?? `no counts for ${host}` }
              : serviceWindow(first, last, host, this.now() - openedAt),
          );
        }
        return counts;
      },
    };
  }

  /** every host at once; a host that cannot be read is its one line */
  private async readAll(
    hosts: readonly string[],
    signal?: AbortSignal,
  ): Promise<Map<string, ServiceReading | string>> {
    const read = await Promise.all(
      hosts.map((h) =>
        this.readHost(h, signal).then(
          (r): ServiceReading | string => r,
          (error: unknown) =>
            `${h}: the services' counts could not be read: ${messageOf(error).split('\n')[0] ?? ''}`,
        ),
      ),
    );
    return new Map(hosts.map((h, i) => [h, read[i] as ServiceReading | string]));
  }
}
