import type { Clock } from '../clock.js';

/** A background check: passes when `run` returns anything but `false` and does not throw. */
export interface BackgroundCheck {
  readonly name: string;
  run(): unknown;
  /** a failing critical check takes the service out of rotation; default true */
  readonly critical?: boolean;
  /** a run that has not settled by then is a failure with code TIMEOUT; default 2000 ms */
  readonly timeoutMs?: number;
}

/** One run's result, as probes see it: a code, never the error's message. */
export interface Outcome {
  readonly ok: boolean;
  /** `OK`, `FAILED` (returned false), `TIMEOUT`, the error's own code, or `ERROR` */
  readonly code: string;
  readonly latencyMs: number;
}

/** a code goes into a public answer: anything but a short identifier could carry a secret */
const SAFE_CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,39}$/;

export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && SAFE_CODE.test(code) ? code : 'ERROR';
}

const TIMED_OUT = Symbol('timeout');

/**
 * Runs one check under its own deadline. A run still in flight from an
 * earlier round is not started again — a hanging dependency must not collect
 * one stuck call per round — and counts as another TIMEOUT. The deadline's
 * timer is cleared whichever way the race ends.
 */
export class CheckRunner {
  private inFlight: { since: number } | undefined;

  constructor(
    private readonly check: BackgroundCheck,
    private readonly clock: Clock,
  ) {}

  async run(): Promise<Outcome> {
    const started = this.clock.now();
    if (this.inFlight)
      return { ok: false, code: 'TIMEOUT', latencyMs: started - this.inFlight.since };
    const elapsed = (): number => this.clock.now() - started;
    let value: unknown;
    try {
      value = this.check.run();
    } catch (error) {
      return { ok: false, code: errorCode(error), latencyMs: elapsed() };
    }
    // a synchronous answer needs no deadline
    if (!isThenable(value)) return outcome(value, elapsed());
    const flight = { since: started };
    this.inFlight = flight;
    const running = Promise.resolve(value).finally(() => {
      if (this.inFlight === flight) this.inFlight = undefined;
    });
    const deadline = new AbortController();
    const timedOut = this.clock.sleep(this.check.timeoutMs ?? 2000, deadline.signal).then(
      () => TIMED_OUT,
      () => undefined,
    );
    try {
      const settled = await Promise.race([running, timedOut]);
      if (settled === TIMED_OUT) return { ok: false, code: 'TIMEOUT', latencyMs: elapsed() };
      return outcome(settled, elapsed());
    } catch (error) {
      return { ok: false, code: errorCode(error), latencyMs: elapsed() };
    } finally {
      deadline.abort();
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function outcome(value: unknown, latencyMs: number): Outcome {
  return value === false
    ? { ok: false, code: 'FAILED', latencyMs }
    : { ok: true, code: 'OK', latencyMs };
}
