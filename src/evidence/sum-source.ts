import { addWindows, type WindowCounts } from './kit/counts.js';
import type { CountWindow, EvidenceSource } from './kit/source.js';

/**
 * Several balancers in front of one fleet (a pair): each counts
 * only the share of the traffic it carried, so what the fleet saw is their
 * sum, host by host. A host one of them cannot count makes the sum unread
 * for that host, never the others' share passed off as all of it.
 */
export class SumCountSource implements EvidenceSource {
  readonly kind = 'balancer';
  readonly label: string;

  constructor(private readonly parts: readonly EvidenceSource[]) {
    this.label = parts.map((p) => p.label).join(' + ');
  }

  async open(hosts: readonly string[], signal?: AbortSignal): Promise<CountWindow> {
    const windows = await Promise.all(this.parts.map((p) => p.open(hosts, signal)));
    return {
      openedAt: Math.min(...windows.map((w) => w.openedAt)),
      read: async (readSignal) => {
        const reads = await Promise.all(windows.map((w) => w.read(readSignal)));
        const keys = new Set(reads.flatMap((r) => [...r.keys()]));
        const out = new Map<string, WindowCounts>();
        for (const key of keys) {
          const each = reads.map(
            (r, i): WindowCounts =>
              r.get(key) ?? {
                kind: 'unread',
                reason: `${this.parts[i]?.label} has no counts for ${key}`,
              },
          );
          out.set(key, each.reduce(addWindows));
        }
        return out;
      },
    };
  }
}
