import { BlockedError } from '../../../errors.js';
import { LEASE_VERSION, isLeaseRecord, type LeaseRecord } from '../../../protocol/lease.js';
import { unb64 } from './gateway.js';

/**
 * The lease key's value: the same record the hosts store writes. One this
 * handoff cannot read is refused, never taken over: it may be a live lease
 * (a newer handoff's, or a hand edit), and only an operator may break it.
 */
export function parseEtcdLease(where: string, value: string | undefined): LeaseRecord {
  let v: Partial<LeaseRecord> | undefined;
  try {
    v = JSON.parse(unb64(value)) as Partial<LeaseRecord>;
  } catch {
    v = undefined;
  }
  if (typeof v?.version === 'number' && v.version > LEASE_VERSION)
    throw new BlockedError(
      `${where} was written by a newer handoff (lease version ${v.version}); deploy from that version`,
    );
  if (!isLeaseRecord(v))
    throw new BlockedError(
      `${where} is not a lease handoff can read; it may be live: once no deploy runs on this fleet, 'deploy lease break --yes' removes it`,
    );
  return v;
}
