import { stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { removeFile } from './state-store.js';

/**
 * A deploy that finds the lock taken by a watchdog tick leaves its intent in
 * `host.state/lock-wanted`; the next ticks stand aside, so a watchdog ticking
 * every second cannot keep a deploy waiting. An intent older than `FRESH` is
 * ignored: a deploy that died while waiting must not silence the watchdog.
 */
const FRESH = 90_000;

export function lockIntentPath(state: string): string {
  return path.join(state, 'lock-wanted');
}

export async function announceLockIntent(state: string, what: string, now: number): Promise<void> {
  await writeFileAtomic(
    lockIntentPath(state),
    `${JSON.stringify({ what, since: new Date(now).toISOString() })}\n`,
  );
}

export async function withdrawLockIntent(state: string): Promise<void> {
  await removeFile(lockIntentPath(state)).catch(() => false);
}

/** true while a deploy is waiting for the lock */
export async function lockWanted(state: string, now: number): Promise<boolean> {
  const file = lockIntentPath(state);
  try {
    const s = await stat(file);
    if (s.mtimeMs > now) {
      // written before the clock stepped back: left in the future it would stay "fresh"
      // for as long as the step, and the watchdog would stand aside all that time; from
      // now on it ages like one written now (a deploy that has gone stays gone)
      const at = new Date(now);
      await utimes(file, at, at).catch(() => undefined);
    }
    return now - Math.min(s.mtimeMs, now) < FRESH;
  } catch {
    return false;
  }
}
