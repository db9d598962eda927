/** Every wait goes through a Clock, so unit tests of a 150 s drain take milliseconds. */
export interface Clock {
  /** milliseconds since the epoch */
  now(): number;
  /** resolves after `ms`, or rejects with the signal's reason when it aborts */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        // a longer wait would fire after 1 ms: Node's timers hold at most 2³¹−1 ms
        Math.min(ms, 2 ** 31 - 1),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
