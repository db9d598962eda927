import { HandoffError } from '../../errors.js';
import type { WindowCounts } from './counts.js';

/**
 * Where the numbers come from, behind one interface: the balancer's own
 * counters (per server), the services' own counts (the health
 * library's middleware, read by each host's agent), or a user's command
 * (Prometheus, CloudWatch Logs, Datadog …). A window opens at a moment and
 * can be read any number of times after it: each read is the counts from
 * the opening until now, per host, so a bake can look as often as it likes.
 */

export type SourceKind = 'balancer' | 'service' | 'command';

export interface CountWindow {
  /** when the window opened, ms since the epoch */
  readonly openedAt: number;
  /** every host's counts from the opening until now; throws a HandoffError when unreadable */
  read(signal?: AbortSignal): Promise<ReadonlyMap<string, WindowCounts>>;
}

export interface EvidenceSource {
  readonly kind: SourceKind;
  /** what counts, for the lines: "<kind> be_api", "the services' counts", "./counts.sh" */
  readonly label: string;
  open(hosts: readonly string[], signal?: AbortSignal): Promise<CountWindow>;
}

/**
 * A read that failed is not a pass and not a zero: each host of it is
 * `unread` with the one line the failure said, and the caller retries or
 * counts it as inconclusive. Anything but a HandoffError is a bug and rises.
 */
export async function readOrUnread(
  window: CountWindow,
  hosts: readonly string[],
  signal?: AbortSignal,
): Promise<ReadonlyMap<string, WindowCounts>> {
  try {
    return await window.read(signal);
  } catch (error) {
    if (!(error instanceof HandoffError)) throw error;
    const reason = error.message.split('\n')[0] ?? '';
    return new Map(hosts.map((h) => [h, { kind: 'unread', reason }]));
  }
}
