import type { Clock } from '../clock.js';

export interface PollOptions {
  readonly clock: Clock;
  /** time between probes */
  readonly every: number;
  /** give up after this long; the last value is returned with `met: false` */
  readonly within: number;
  readonly signal?: AbortSignal;
}

export interface PollResult<T> {
  readonly met: boolean;
  readonly value: T;
  readonly elapsed: number;
  readonly probes: number;
}

/**
 * Probe until `done` holds or the bound passes. It knows nothing about SSH or
 * balancers: callers pass the probe. A probe that throws is the caller's failure.
 */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  options: PollOptions,
): Promise<PollResult<T>> {
  const { clock, every, within, signal } = options;
  const started = clock.now();
  let probes = 0;
  for (;;) {
    signal?.throwIfAborted();
    const value = await probe();
    probes += 1;
    const elapsed = clock.now() - started;
    if (done(value)) return { met: true, value, elapsed, probes };
    if (elapsed >= within) return { met: false, value, elapsed, probes };
    await clock.sleep(Math.min(every, within - elapsed), signal);
  }
}
