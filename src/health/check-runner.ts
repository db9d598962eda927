import type { Clock } from '../clock.js';

/** A background check: passes when `run` returns anything but `false` and does not throw. */
export interface BackgroundCheck {
  readonly name: string;
  /**
   * `signal` aborts at the run's deadline: hand it to the client (fetch, pg,
   * mysql2, redis, the AWS SDK all take one), so a call that would hang ends
   */
  run(signal: AbortSignal): unknown;
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

/** why a run's signal aborts: its deadline, as `AbortSignal.timeout` would say it */
const deadlineReason = (ms: number): DOMException =>
  new DOMException(`the check's deadline of ${ms} ms passed`, 'TimeoutError');

/** a code goes into a public answer: anything but a short identifier could carry a secret */
const SAFE_CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,39}$/;

export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && SAFE_CODE.test(code) ? code : 'ERROR';
}

const TIMED_OUT = Symbol('timeout');

/**
 * Runs one check under its own deadline, every round afresh. At the deadline
 * the run's signal aborts and the run is abandoned: the round is a TIMEOUT,
 * whatever the call answers later, and the next round starts a fresh run —
 * so a call that never settles (a black-holed connection, a client without a
 * timeout of its own) costs one round, not every round after it, and the
 * check passes again `successThreshold` rounds after the dependency answers.
 * An abandoned run is counted until it settles: the library holds nothing
 * else of it. The deadline's timer is cleared whichever way the race ends.
 */
export class CheckRunner {
  /** abandoned runs that have not settled yet: a client that ignores its signal shows here */
  private unsettled = 0;

  constructor(
    private readonly check: BackgroundCheck,
    private readonly clock: Clock,
  ) {}

  abandoned(): number {
    return this.unsettled;
  }

  async run(): Promise<Outcome> {
    const started = this.clock.now();
    const elapsed = (): number => this.clock.now() - started;
    const timeoutMs = this.check.timeoutMs ?? 2000;
    const call = new AbortController();
    let value: unknown;
    try {
      value = this.check.run(call.signal);
    } catch (error) {
      return { ok: false, code: errorCode(error), latencyMs: elapsed() };
    }
    // a synchronous answer needs no deadline
    if (!isThenable(value)) return outcome(value, elapsed());
    const running = Promise.resolve(value);
    const deadline = new AbortController();
    const timedOut = this.clock.sleep(timeoutMs, deadline.signal).then(
      () => TIMED_OUT,
      () => undefined,
    );
    try {
      const settled = await Promise.race([running, timedOut]);
      if (settled !== TIMED_OUT) return outcome(settled, elapsed());
      this.unsettled += 1;
      const settle = (): void => void (this.unsettled -= 1);
      running.then(settle, settle);
      call.abort(deadlineReason(timeoutMs));
      return { ok: false, code: 'TIMEOUT', latencyMs: elapsed() };
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
