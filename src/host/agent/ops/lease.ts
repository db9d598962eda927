import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { UsageError } from '../../../errors.js';
import {
  describeLease,
  leaseHolderOf,
  type LeaseAction,
  type LeaseAnswer,
  type LeaseRequest,
} from '../../../protocol/lease.js';
import { appendAudit } from '../../audit.js';
import { leaseAction } from '../../lease-file.js';

const ACTIONS: readonly LeaseAction[] = ['take', 'renew', 'release', 'read'];

/**
 * `deploy host lease --action take|renew|release|read [--lease <json>]`. A
 * take that replaces another holder's piece (expired, proven gone, or
 * `deploy lease break`) is kept in the host's audit.jsonl.
 */
export async function leaseCall(
  host: Pick<Config['host'], 'state' | 'root'>,
  clock: Clock,
  action: string,
  lease: string | undefined,
): Promise<LeaseAnswer> {
  if (!(ACTIONS as readonly string[]).includes(action))
    throw new UsageError(`--action ${JSON.stringify(action)}: use ${ACTIONS.join(', ')}`);
  const request = parseRequest(lease);
  const answer = await leaseAction(host.state, clock, action as LeaseAction, request);
  if (request && answer.tookOver) {
    const was = answer.tookOver;
    await appendAudit(host.root, {
      release: was.release ?? '',
      step: request.command === 'lease break' ? 'lease break' : 'lease takeover',
      start: new Date(clock.now()).toISOString(),
      duration_ms: 0,
      result: 'ok',
      who: `${request.holder.user}@${request.holder.host}`,
      detail: `${describeLease(request)} took the fleet lease's piece of ${describeLease(was)}, heartbeat ${Math.round(was.ageMs / 1000)}s old`,
    });
  }
  return answer;
}

function parseRequest(text: string | undefined): LeaseRequest | undefined {
  if (text === undefined) return undefined;
  let v: Partial<LeaseRequest> | undefined;
  try {
    v = JSON.parse(text) as Partial<LeaseRequest>;
  } catch {
    v = undefined;
  }
  const holder = leaseHolderOf(v?.holder);
  if (
    typeof v?.id !== 'string' ||
    v.id === '' ||
    typeof v.command !== 'string' ||
    (v.replaces !== undefined &&
      (!Array.isArray(v.replaces) || !v.replaces.every((x) => typeof x === 'string'))) ||
    (v.release !== undefined && typeof v.release !== 'string') ||
    !holder
  )
    throw new UsageError('--lease: not a lease request (id, holder, command, release)');
  return {
    id: v.id,
    holder,
    command: v.command,
    ...(v.release ? { release: v.release } : {}),
    ...(v.replaces ? { replaces: [...v.replaces] } : {}),
  };
}
