import { hostname } from 'node:os';
import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { BlockedError, OperationError, type LockHolder } from '../../../errors.js';
import { HOST_LOCK_OPTIONS, readLockStatus } from '../../lock.js';
import { processStartTime } from '../../process-start.js';

/**
 * Why `pid` may not be signalled as the holder: it ran on another host, or
 * the process under that pid now is not the one that took the lock (pids
 * are reused; its start time says which process it is).
 */
function notTheHolder(holder: LockHolder): string | undefined {
  if (elsewhere(holder))
    return `the holder runs on ${holder.host}, not on this host; stop it there`;
  if (holder.started === undefined)
    return `the holder did not record its start time, so pid ${holder.pid} cannot be told from a reused one; stop it by hand`;
  if (processStartTime(holder.pid) !== holder.started)
    return `pid ${holder.pid} is no longer the process that took the lock (another start time); not killing it. Check the host by hand`;
  return undefined;
}

function elsewhere(holder: LockHolder): boolean {
  return holder.host !== undefined && holder.host !== hostname();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `deploy lock release`: free a host lock whose holder is stuck. A live holder
 * is only stopped with --force (SIGTERM: the lock holder releases on it); a
 * dead one's lock goes stale by itself within `stale`, which is awaited here.
 */
export async function lockRelease(config: Config, clock: Clock, force: boolean): Promise<unknown> {
  const status = await readLockStatus(config.host.lock);
  if (!status.locked) return { released: false, reason: 'not locked' };
  const holder = status.holder;
  // a pid recorded on another host says nothing about this host's processes
  if (holder && (elsewhere(holder) || alive(holder.pid))) {
    if (!force) {
      throw new BlockedError(
        `the host lock is held by ${holder.what} (pid ${holder.pid}${elsewhere(holder) ? ` on ${holder.host}` : ', alive'}) since ${holder.since}; pass --force to stop it`,
      );
    }
    const refusal = notTheHolder(holder);
    if (refusal) throw new BlockedError(refusal);
    process.kill(holder.pid, 'SIGTERM');
  }
  const deadline = clock.now() + HOST_LOCK_OPTIONS.stale * 2;
  while (clock.now() < deadline) {
    if (!(await readLockStatus(config.host.lock)).locked)
      return { released: true, holder: holder ?? null };
    await clock.sleep(200);
  }
  throw new OperationError(
    `the host lock is still held after ${(HOST_LOCK_OPTIONS.stale * 2) / 1000}s`,
  );
}
