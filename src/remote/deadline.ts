import { constants } from 'node:os';
import type { Clock } from '../clock.js';

/**
 * Calls `onExpire` after `ms` on the clock unless cancelled first. Returns the
 * cancel function (a no-op when there is no limit), so every exit path of a
 * command can stop its timer and a finished command never fires a late kill.
 */
export function startDeadline(
  clock: Clock,
  ms: number | undefined,
  onExpire: () => void,
): () => void {
  if (ms === undefined) return () => undefined;
  const controller = new AbortController();
  clock.sleep(ms, controller.signal).then(onExpire, () => undefined);
  return () => controller.abort();
}

/** A process killed by a signal reports 128 + its number, as a shell would. */
export function signalExitCode(signal: string | undefined | null): number {
  if (!signal) return -1;
  const name = (
    signal.startsWith('SIG') ? signal : `SIG${signal}`
  ) as keyof typeof constants.signals;
  const number = constants.signals[name] as number | undefined;
  return number === undefined ? -1 : 128 + number;
}
