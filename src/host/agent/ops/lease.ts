import type { Clock } from '../../../clock.js';
import { UsageError } from '../../../errors.js';
import {
  leaseHolderOf,
  type LeaseAction,
  type LeaseAnswer,
  type LeaseRequest,
} from '../../../protocol/lease.js';
import { leaseAction } from '../../lease-file.js';

const ACTIONS: readonly LeaseAction[] = ['take', 'renew', 'release', 'read'];

/** `deploy host lease --action take|renew|release|read [--lease <json>]` */
export async function leaseCall(
  state: string,
  clock: Clock,
  action: string,
  lease: string | undefined,
): Promise<LeaseAnswer> {
  if (!(ACTIONS as readonly string[]).includes(action))
    throw new UsageError(`--action ${JSON.stringify(action)}: use ${ACTIONS.join(', ')}`);
  return leaseAction(state, clock, action as LeaseAction, parseRequest(lease));
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
