import { OperationError } from '../errors.js';
import { parseSocketAddress, describeAddress } from '../balancer/haproxy/address.js';
import { garbage, runCommand } from '../balancer/haproxy/runtime-api.js';
import { parseCounters, type HaproxyCounters } from './haproxy-counters.js';

export interface HaproxyCounterSocket {
  /** balancer.socket: a unix path or tcp://host:port */
  readonly socket: string;
  readonly backend: string;
  readonly timeoutMs?: number;
}

/**
 * One snapshot of a backend's counters through the runtime API client the
 * balancer uses (one command per connection); `show info` first, so a reload
 * between the two commands shows as a new process at the next snapshot.
 */
export async function readHaproxyCounters(where: HaproxyCounterSocket): Promise<HaproxyCounters> {
  const address = parseSocketAddress(where.socket);
  const options = where.timeoutMs !== undefined ? { timeoutMs: where.timeoutMs } : {};
  const info = await runCommand(address, 'show info', options);
  const stat = await runCommand(address, 'show stat', options);
  const parsed = parseCounters(stat, info, where.backend);
  if (parsed.ok) return parsed.counters;
  if (parsed.reason === `no backend ${where.backend}`)
    throw new OperationError(
      `haproxy socket ${describeAddress(address)} has no backend ${where.backend}: check balancer.backend`,
    );
  throw garbage(address, 'show stat', stat);
}
