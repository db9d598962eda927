import { readFile } from 'node:fs/promises';
import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { BlockedError, OperationError } from '../../../errors.js';
import { HOST_LOCK_OPTIONS, readLockStatus } from '../../lock.js';

/** The pid still belongs to a handoff process (pids are reused). */
async function isHandoff(pid: number): Promise<boolean> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return /deploy|handoff|lock/.test(cmdline.replace(/\0/g, ' '));
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
  if (holder && alive(holder.pid)) {
    if (!force) {
      throw new BlockedError(
        `the host lock is held by ${holder.what} (pid ${holder.pid}, alive) since ${holder.since}; pass --force to stop it`,
      );
    }
    if (!(await isHandoff(holder.pid))) {
      throw new BlockedError(
        `pid ${holder.pid} no longer looks like the lock holder; not killing it. Check the host by hand`,
      );
    }
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
