import type { HostConfig } from '../../config/types.js';

/**
 * `answer`, unless `signal` aborts first: then its reason. What was asked is
 * not cancelled by this, only no longer waited for (a verify cut short by a
 * second Ctrl-C, a host whose lock was lost while its wave gathers).
 */
export function unlessAborted<T>(answer: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    answer.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * `then`, once, as soon as every host of the wave has called the answer
 * (each host once; again or a stranger counts for nothing); at once for an
 * empty wave.
 */
export function everyHost(wave: readonly HostConfig[], then: () => void): (host: string) => void {
  const left = new Set(wave.map((h) => h.name));
  if (left.size === 0) then();
  return (host) => {
    if (left.delete(host) && left.size === 0) then();
  };
}
