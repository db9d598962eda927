import lockfile from 'proper-lockfile';
import type { Clock } from '../clock.js';
import { BlockedError, messageOf } from '../errors.js';

/**
 * The short mutex every fleet-lease action holds while it reads, decides and
 * writes (`lease.json.lock`, a directory created atomically by
 * proper-lockfile). Its default reaction to a lost mutex throws from a timer
 * and ends the process — inside `lock-hold`, the one holding the host lock
 * mid-handshake. Here a lost mutex only makes the action give up before it
 * writes: another taker may hold the mutex now.
 */
export interface LeaseMutex {
  /** throws when the mutex may be another's now: call it right before writing */
  check(): void;
}

export interface MutexOptions {
  /** a mutex older than this is taken from its holder by the next taker (proper-lockfile) */
  readonly stale: number;
  readonly update?: number;
  readonly retries: { retries: number; minTimeout: number; maxTimeout: number; factor: number };
}

export const LEASE_MUTEX: MutexOptions = Object.freeze({
  stale: 10_000,
  retries: { retries: 50, minTimeout: 20, maxTimeout: 100, factor: 1.5 },
});

export async function withLeaseMutex<T>(
  file: string,
  clock: Clock,
  fn: (mutex: LeaseMutex) => Promise<T>,
  options: MutexOptions = LEASE_MUTEX,
): Promise<T> {
  let lost: string | undefined;
  let unlock: () => Promise<void>;
  try {
    unlock = await lockfile.lock(file, {
      ...options,
      realpath: false,
      onCompromised: (error) => {
        lost = error.message;
      },
    });
  } catch (error) {
    throw new BlockedError(`cannot take the lease's mutex ${file}.lock: ${messageOf(error)}`);
  }
  const taken = clock.now();
  const mutex: LeaseMutex = {
    check: () => {
      // a call paused past half the staleness (SIGSTOP, a frozen VM) may have lost the
      // mutex before proper-lockfile's own timer could tell: give up the same way
      const heldMs = clock.now() - taken;
      if (lost === undefined && heldMs <= options.stale / 2) return;
      throw new BlockedError(
        `lost the lease's mutex ${file}.lock while this call held it (${lost ?? `held ${Math.round(heldMs / 1000)}s`}); nothing was written: run the command again`,
      );
    },
  };
  try {
    return await fn(mutex);
  } finally {
    // a lost mutex is another's now (or gone): nothing of ours to remove
    await unlock().catch(() => undefined);
  }
}
