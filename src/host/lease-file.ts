import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../clock.js';
import { BlockedError, OperationError, messageOf } from '../errors.js';
import { withLeaseMutex, type LeaseMutex } from './lease-mutex.js';
import {
  LEASE_CLOCK_SLACK_MS,
  LEASE_TTL_MS,
  LEASE_VERSION,
  isLeaseRecord,
  type LeaseAction,
  type LeaseAnswer,
  type LeaseRecord,
  type LeaseRequest,
} from '../protocol/lease.js';
import { writeFileAtomic } from './atomic.js';
import { isMissing } from './layout.js';
import { removeFile } from './state-store.js';

/**
 * This host's piece of the fleet lease: `host.state/lease.json`. Every
 * action reads, decides and writes under a short mutex (`lease.json.lock`, a
 * directory created atomically by proper-lockfile), so two deployers taking an
 * expired piece at once cannot both win. The host stamps the times with its
 * own clock, so one clock judges every heartbeat.
 */
export function leasePath(state: string): string {
  return path.join(state, 'lease.json');
}

export async function leaseAction(
  state: string,
  clock: Clock,
  action: LeaseAction,
  request: LeaseRequest | undefined,
): Promise<LeaseAnswer> {
  const file = leasePath(state);
  if (action === 'read') return answerOf(await readLease(file), clock.now());
  if (!request) throw new OperationError(`lease ${action}: no lease given`);
  // the mutex needs its directory: host.state is tmpfs, gone after a reboot
  await mkdir(state, { recursive: true, mode: 0o755 });
  return withLeaseMutex(file, clock, async (mutex) => {
    const now = clock.now();
    const held = await readLease(file);
    if (action === 'take') return await take(mutex, file, held, request, now);
    if (action === 'renew') return await renew(mutex, file, held, request, now);
    if (held?.id !== request.id) return { ...answerOf(held, now), ok: true };
    mutex.check();
    await removeFile(file);
    return { ok: true };
  });
}

async function take(
  mutex: LeaseMutex,
  file: string,
  held: LeaseRecord | undefined,
  request: LeaseRequest,
  now: number,
): Promise<LeaseAnswer> {
  if (held && held.id !== request.id) {
    const ageMs = ageOf(file, held, now);
    if (ageMs <= held.ttlMs && !request.replaces?.includes(held.id))
      return { ok: false, lease: held, ageMs };
    const record = await write(mutex, file, request, now, now);
    return { ok: true, lease: record, tookOver: { ...held, ageMs } };
  }
  const started = held ? Date.parse(held.started) : now;
  return { ok: true, lease: await write(mutex, file, request, started, now) };
}

async function renew(
  mutex: LeaseMutex,
  file: string,
  held: LeaseRecord | undefined,
  request: LeaseRequest,
  now: number,
): Promise<LeaseAnswer> {
  // lost: taken over after it expired, or removed by hand; never silently taken back
  if (held?.id !== request.id) return { ...answerOf(held, now), ok: false };
  return { ok: true, lease: await write(mutex, file, request, Date.parse(held.started), now) };
}

async function write(
  mutex: LeaseMutex,
  file: string,
  request: LeaseRequest,
  started: number,
  now: number,
): Promise<LeaseRecord> {
  const record: LeaseRecord = {
    version: LEASE_VERSION,
    id: request.id,
    holder: request.holder,
    command: request.command,
    ...(request.release ? { release: request.release } : {}),
    started: new Date(started).toISOString(),
    heartbeat: new Date(now).toISOString(),
    ttlMs: LEASE_TTL_MS,
  };
  mutex.check();
  await writeFileAtomic(file, `${JSON.stringify(record)}\n`);
  return record;
}

function answerOf(held: LeaseRecord | undefined, now: number): LeaseAnswer {
  if (!held) return { ok: false };
  return { ok: true, lease: held, ageMs: Math.max(0, now - Date.parse(held.heartbeat)) };
}

/** The heartbeat's age; one from the host's future is refused, never taken over. */
function ageOf(file: string, held: LeaseRecord, now: number): number {
  const age = now - Date.parse(held.heartbeat);
  if (age < -LEASE_CLOCK_SLACK_MS)
    throw new BlockedError(
      `${file}: the lease's heartbeat is ${Math.round(-age / 1000)}s ahead of this host's clock, so it may be live; check the host's clock (NTP), and remove the file only once no deploy runs`,
    );
  return Math.max(0, age);
}

/** The piece on this host, or undefined when free; one that is not a lease is refused. */
export async function readLease(file: string): Promise<LeaseRecord | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw new OperationError(`cannot read ${file}: ${messageOf(error)}`);
  }
  return parseLease(file, text);
}

export function parseLease(file: string, text: string): LeaseRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const v = value as Partial<LeaseRecord> | undefined;
  if (typeof v?.version === 'number' && v.version > LEASE_VERSION)
    throw new BlockedError(
      `${file} was written by a newer handoff (lease version ${v.version}); deploy from that version, or run \`deploy setup\` with it`,
    );
  if (!isLeaseRecord(v))
    throw new BlockedError(
      `${file} is not a lease handoff can read; it may be live: remove it once no deploy runs on this fleet`,
    );
  return v;
}
