import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import type { LockHolder } from '../errors.js';
import { writeFileAtomic } from './atomic.js';
import * as shape from './json-shape.js';
import { lockHolderPath } from './layout.js';
import { processStartTime } from './process-start.js';
import { readJsonFile, removeFile } from './state-store.js';

/**
 * proper-lockfile's lock is a bare directory: it says *that* the lock is held,
 * not by whom. The holder records itself in `<lock>.holder.json` so a refused
 * taker can say "held by deploy rollout (pid 4242) since 10:02". The file is
 * only trusted while the lock itself is held; a SIGKILLed holder leaves it
 * behind, and the next holder overwrites it.
 */

const holderSchema = shape.parser<LockHolder>(
  shape.object({
    what: shape.string,
    pid: shape.int,
    since: shape.string,
    message: shape.optional(shape.string),
    host: shape.optional(shape.string),
    started: shape.optional(shape.string),
  }),
);

export function describeSelf(what: string, now: number, message?: string): LockHolder {
  const started = processStartTime(process.pid);
  return {
    what,
    pid: process.pid,
    since: new Date(now).toISOString(),
    ...(message === undefined ? {} : { message }),
    host: hostname(),
    ...(started === undefined ? {} : { started }),
  };
}

export async function writeHolder(lock: string, holder: LockHolder): Promise<void> {
  await writeFileAtomic(lockHolderPath(lock), `${JSON.stringify(holder)}\n`);
}

/** undefined when missing or unreadable: "held by an unknown holder" is still the truth */
export async function readHolder(lock: string): Promise<LockHolder | undefined> {
  try {
    return (await readJsonFile(lockHolderPath(lock), holderSchema)).value;
  } catch {
    return undefined;
  }
}

/**
 * The holder as a refused taker should name it. Taking the lock and writing
 * the holder file are two steps: right after a takeover the file can still be
 * missing, or still describe the SIGKILLed previous holder. Give the new
 * holder a moment to write it, and never name a local process that is gone.
 */
export async function awaitHolder(lock: string, clock: Clock): Promise<LockHolder | undefined> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const holder = await readHolder(lock);
    if (holder && isAlive(holder)) return holder;
    await clock.sleep(20);
  }
  return undefined;
}

function isAlive(holder: LockHolder): boolean {
  if (holder.host !== undefined && holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it just is not ours to signal
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Remove the holder file only if it still describes us, never a successor's. */
export async function removeHolderIfOurs(lock: string, holder: LockHolder): Promise<void> {
  const current = await readHolder(lock);
  if (current && current.pid === holder.pid && current.since === holder.since) {
    await removeFile(lockHolderPath(lock)).catch(() => undefined);
  }
}
