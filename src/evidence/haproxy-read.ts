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
 * balancer uses, both commands on one connection (the runtime API runs
 * `;`-separated commands in order): `show info` first, so a reload between
 * the two shows as a new process at the next snapshot. One connection, not
 * two in turn: a receipt's window is read on each host's path, before its unlock.
 */
export async function readHaproxyCounters(where: HaproxyCounterSocket): Promise<HaproxyCounters> {
  const address = parseSocketAddress(where.socket);
  const options = where.timeoutMs !== undefined ? { timeoutMs: where.timeoutMs } : {};
  const { info, stat } = splitInfoStat(await runCommand(address, 'show info;show stat', options));
  const parsed = parseCounters(stat, info, where.backend);
  if (parsed.ok) return parsed.counters;
  if (parsed.reason === `no backend ${where.backend}`)
    throw new OperationError(
      `haproxy socket ${describeAddress(address)} has no backend ${where.backend}: check balancer.backend`,
    );
  throw garbage(address, 'show stat', stat);
}

/**
 * `show info;show stat`'s answer: the info's lines, then the CSV from its
 * header on. Without the CSV, what came after the info's empty line (the
 * whole answer if none), for the error to quote.
 */
export function splitInfoStat(answer: string): { info: string; stat: string } {
  const at = answer.search(/^# pxname,/m);
  if (at >= 0) return { info: answer.slice(0, at), stat: answer.slice(at) };
  const end = answer.indexOf('\n\n');
  return { info: answer, stat: end < 0 ? answer : answer.slice(end + 2) };
}
