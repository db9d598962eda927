import { systemClock, type Clock } from '../clock.js';

export interface PollOptions {
  readonly clock: Clock;
  /** time between probes */
  readonly every: number;
  /** give up after this long; the last value is returned with `met: false` */
  readonly within: number;
  readonly signal?: AbortSignal;
  /**
   * what a hung probe is timed on: real time, since a probe is real I/O even
   * where `clock` is a test's (whose sleeps pass at once); a test of the
   * timeout passes its own
   */
  readonly probeClock?: Clock;
}

export interface PollResult<T> {
  readonly met: boolean;
  readonly value: T;
  readonly elapsed: number;
  readonly probes: number;
}

/** How long past the bound a probe may take to answer before it counts as hung. */
export const PROBE_GRACE_MS = 5_000;

/** A probe that did not answer by the poll's bound (and its grace): a balancer cut off, say. */
export class ProbeTimeout extends Error {
  constructor(readonly afterMs: number) {
    super(`no answer within ${Math.round(afterMs / 1000)}s`);
    this.name = 'ProbeTimeout';
  }
}

/**
 * Probe until `done` holds or the bound passes. It knows nothing about SSH or
 * balancers: callers pass the probe. A probe that throws is the caller's
 * failure, and so is one that has not answered `PROBE_GRACE_MS` after the
 * bound (ProbeTimeout): an API whose packets are dropped must not hold a
 * drained host for the minutes its client would wait.
 */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  options: PollOptions,
): Promise<PollResult<T>> {
  const { clock, every, within, signal, probeClock = systemClock } = options;
  const started = clock.now();
  let probes = 0;
  for (;;) {
    signal?.throwIfAborted();
    const left = Math.max(0, within - (clock.now() - started)) + PROBE_GRACE_MS;
    const value = await answeredWithin(probe(), left, probeClock);
    probes += 1;
    const elapsed = clock.now() - started;
    if (done(value)) return { met: true, value, elapsed, probes };
    if (elapsed >= within) return { met: false, value, elapsed, probes };
    await clock.sleep(Math.min(every, within - elapsed), signal);
  }
}

const TIMED_OUT: unique symbol = Symbol('timed out');

/** `answer`, or ProbeTimeout once `ms` pass first (the probe itself is left to finish or fail unheard). */
async function answeredWithin<T>(answer: Promise<T>, ms: number, clock: Clock): Promise<T> {
  // not the command's signal: an interrupt lets the step finish, and a hung probe must still end
  const timer = new AbortController();
  // never rejects: a wait stopped because the answer came just never wins
  const late: Promise<typeof TIMED_OUT> = clock.sleep(ms, timer.signal).then(
    (): typeof TIMED_OUT => TIMED_OUT,
    () => new Promise<never>(() => undefined),
  );
  // a probe that fails after the timeout is not an unhandled rejection
  answer.catch(() => undefined);
  try {
    const first = await Promise.race<T | typeof TIMED_OUT>([answer, late]);
    if (first === TIMED_OUT) throw new ProbeTimeout(ms);
    return first;
  } finally {
    timer.abort();
  }
}
