import { stat } from 'node:fs/promises';

export interface DrainWatch {
  /** true while the drain marker exists; answers from a cache younger than `maxAgeMs` */
  isDraining(): Promise<boolean>;
}

export interface DrainWatchOptions {
  /** how stale an answer may be; a health endpoint is polled every second or so */
  readonly maxAgeMs?: number;
  readonly now?: () => number;
}

/**
 * Watches `<stateDir>/draining`. A health endpoint sits on the hot path of
 * every balancer probe, and a service may expose it on its public port, so a
 * burst of requests must not become a burst of stat calls: one stat answers
 * everyone for `maxAgeMs`, and concurrent callers share the one in flight.
 */
export function watchDrainMarker(markerPath: string, options: DrainWatchOptions = {}): DrainWatch {
  const maxAgeMs = options.maxAgeMs ?? 250;
  const now = options.now ?? Date.now;
  let cached: { value: boolean; at: number } | undefined;
  let inFlight: Promise<boolean> | undefined;

  const refresh = async (): Promise<boolean> => {
    const startedAt = now();
    let value: boolean;
    try {
      await stat(markerPath);
      value = true;
    } catch (e) {
      // anything but "not there" (EACCES, EIO) must not turn a draining host back on
      value = (e as NodeJS.ErrnoException).code !== 'ENOENT';
    }
    cached = { value, at: startedAt };
    return value;
  };

  return {
    isDraining(): Promise<boolean> {
      if (cached && now() - cached.at < maxAgeMs) return Promise.resolve(cached.value);
      inFlight ??= refresh().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}
