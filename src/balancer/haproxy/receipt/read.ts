import { OperationError } from '../../../errors.js';
import { parseSocketAddress, describeAddress, type SocketAddress } from '../address.js';
import { runCommands } from '../batch.js';
import { garbage } from '../runtime-api.js';
import { parseCounters, type HaproxyCounters } from './counters.js';

export interface HaproxyCounterSocket {
  /** balancer.socket: a unix path or tcp://host:port */
  readonly socket: string;
  /** the runtime API as the run's balancer reaches it (over SSH, for one on its own host); else `socket` here */
  readonly address?: SocketAddress;
  readonly backend: string;
  readonly timeoutMs?: number;
}

/**
 * One snapshot of a backend's counters through the runtime API client the
 * balancer uses, both commands on one connection (the runtime API runs
 * `;`-separated commands in order): `show info` first, so a reload between
 * the two shows as a new process at the next snapshot. One connection, not
 * two in turn: a receipt's window is read on each host's path, before its unlock.
 */
export async function readHaproxyCounters(
  where: HaproxyCounterSocket,
  /** the servers whose readings are wanted: every server's by default */
  servers?: ReadonlySet<string>,
): Promise<HaproxyCounters> {
  const address = where.address ?? parseSocketAddress(where.socket);
  const options = where.timeoutMs !== undefined ? { timeoutMs: where.timeoutMs } : {};
  const [info, stat] = await runCommands(address, ['show info', 'show stat'], options);
  const parsed = parseCounters(stat, info, where.backend, servers);
  if (parsed.ok) return parsed.counters;
  if (parsed.reason === `no backend ${where.backend}`)
    throw new OperationError(
      `haproxy socket ${describeAddress(address)} has no backend ${where.backend}: check balancer.backend`,
    );
  throw garbage(address, 'show stat', stat);
}
