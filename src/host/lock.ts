import { realpath } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { systemClock, type Clock } from '../clock.js';
import {
  BlockedError,
  LockHeldError,
  OperationError,
  type LockHolder,
  messageOf,
} from '../errors.js';
import { isMissing } from './layout.js';
import { ensureLockFile } from './lock-dir.js';
import { awaitHolder, describeSelf, removeHolderIfOurs, writeHolder } from './lock-holder.js';

/**
 * The one host lock. Deploy, the watchdog and the host's own setup scripts
 * (`deploy lock exec`) all take it with exactly these options: a taker with a
 * shorter `stale` would steal a healthy holder's lock.
 *
 * stale 10 s: a SIGKILLed holder blocks the host for at most that long.
 * update 5 s: the holder refreshes the lock's mtime twice per stale period, so
 * one slow tick of its event loop does not look like death.
 */
export const HOST_LOCK_OPTIONS = Object.freeze({ stale: 10_000, update: 5_000, realpath: true });

/** How long to keep trying (proper-lockfile's retry options); 0 = refuse at once. */
export type LockRetries =
  | number
  | {
      readonly retries: number;
      readonly minTimeout?: number;
      readonly maxTimeout?: number;
      readonly factor?: number;
    };

/** Keep trying once a second for about `waitMs`: "wait for the deploy to finish". */
export function retriesFor(waitMs: number): LockRetries {
  return {
    retries: Math.max(0, Math.ceil(waitMs / 1000)),
    minTimeout: 1000,
    maxTimeout: 1000,
    factor: 1,
  };
}

export interface AcquireOptions {
  /** who takes it: `deploy rollout`, `watchdog`, `lock exec` */
  readonly what: string;
  /** shown to whoever is refused, e.g. the release or the command */
  readonly message?: string;
  /** default 0: the watchdog must never wait for a deploy */
  readonly retries?: LockRetries;
  readonly clock?: Clock;
}

export interface HostLock {
  /** the lock file as given (absolute) */
  readonly path: string;
  readonly holder: LockHolder;
  /**
   * Aborts if the lock is compromised (its mtime could not be refreshed in
   * time, or someone removed it): another process may hold it now, so the
   * holder should stop what it is doing as cleanly as it can.
   */
  readonly signal: AbortSignal;
  /** idempotent; a no-op after the lock was compromised */
  release(): Promise<void>;
}

export interface LockStatus {
  readonly locked: boolean;
  /** who holds it, when the lock is held and the holder file is readable */
  readonly holder?: LockHolder;
}

export async function acquireHostLock(
  lockPath: string,
  options: AcquireOptions,
): Promise<HostLock> {
  const given = path.resolve(lockPath);
  const clock = options.clock ?? systemClock;
  // proper-lockfile resolves the real path, so the file must exist
  const file = await ensureLockFile(given);
  const compromised = new AbortController();
  let unlock: () => Promise<void>;
  try {
    unlock = await lockfile.lock(file, {
      ...HOST_LOCK_OPTIONS,
      retries: options.retries ?? 0,
      // the default throws from a timer and kills the process mid-deploy
      onCompromised: (error) => {
        compromised.abort(
          new OperationError(
            `lost the host lock ${given} (${error.message}); another process may hold it now`,
          ),
        );
      },
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ELOCKED') {
      throw new LockHeldError(given, await awaitHolder(file, clock));
    }
    throw new BlockedError(`cannot take the host lock ${given}: ${messageOf(error)}`);
  }
  const holder = describeSelf(options.what, clock.now(), options.message);
  try {
    await writeHolder(file, holder);
  } catch (error) {
    await unlock().catch(() => undefined);
    throw error;
  }
  let released = false;
  return {
    path: given,
    holder,
    signal: compromised.signal,
    release: async () => {
      if (released) return;
      released = true;
      if (compromised.signal.aborted) return;
      await removeHolderIfOurs(file, holder);
      await unlock().catch((error: unknown) => {
        // compromised between our check and the unlock: nothing left to release
        if ((error as { code?: unknown }).code !== 'ERELEASED') throw error;
      });
    },
  };
}

/** Read-only: never creates the lock file or its directory. */
export async function readLockStatus(
  lockPath: string,
  clock: Clock = systemClock,
): Promise<LockStatus> {
  let file: string;
  try {
    file = await realpath(path.resolve(lockPath));
  } catch (error) {
    if (isMissing(error)) return { locked: false };
    throw new OperationError(`cannot read the host lock ${lockPath}: ${messageOf(error)}`);
  }
  const locked = await lockfile.check(file, { stale: HOST_LOCK_OPTIONS.stale, realpath: false });
  if (!locked) return { locked };
  const holder = await awaitHolder(file, clock);
  return holder ? { locked, holder } : { locked };
}
