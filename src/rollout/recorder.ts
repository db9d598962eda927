import { messageOf } from '../errors.js';
import type { Clock } from '../clock.js';
import type { AuditEntry } from '../protocol/results.js';
import type { Log } from '../log.js';
import type { StepName, StepRecord } from './types.js';
import { formatMs } from '../timing/duration.js';

/**
 * Times every step of one host, emits it as an event, and appends it to the
 * host's audit log through the lock holder as soon as it ends.
 */
export type Describe<T> = (value: T) => {
  ok?: boolean;
  detail?: string;
  bound_ms?: number;
  balancers?: StepRecord['balancers'];
};

export class StepRecorder {
  readonly steps: StepRecord[] = [];
  audit: ((entry: AuditEntry) => void) | undefined;

  constructor(
    private readonly host: string,
    private readonly release: string,
    private readonly who: string,
    private readonly clock: Clock,
    private readonly log: Log,
    private readonly startedAt: number,
  ) {}

  /** `boundMs`: how long the step may take, for the progress shown while it runs */
  async step<T>(
    step: StepName,
    run: () => Promise<T>,
    describe?: Describe<T>,
    boundMs?: number,
  ): Promise<T> {
    const start = this.clock.now();
    const bound = boundMs === undefined ? '' : ` (up to ${formatMs(boundMs)})`;
    this.log.emit({
      level: 'debug',
      event: 'step.start',
      message: `${step}…${bound}`,
      host: this.host,
      fields: { step, ...(boundMs === undefined ? {} : { boundMs }) },
    });
    try {
      const value = await run();
      const extra = describe?.(value) ?? {};
      this.record(step, start, extra.ok ?? true, extra.detail, extra.bound_ms, extra.balancers);
      return value;
    } catch (error) {
      this.record(step, start, false, messageOf(error));
      throw error;
    }
  }

  /**
   * An event of the run that is no step (a balancer reload), appended to the
   * host's audit while this host holds its lock; nothing when it does not.
   */
  note(what: string, detail: string): void {
    this.audit?.({
      release: this.release,
      step: what,
      start: new Date(this.clock.now()).toISOString(),
      duration_ms: 0,
      result: 'ok',
      who: this.who,
      detail,
    });
  }

  private record(
    step: StepName,
    start: number,
    ok: boolean,
    detail?: string,
    bound_ms?: number,
    balancers?: StepRecord['balancers'],
  ): void {
    const duration_ms = this.clock.now() - start;
    const rec: StepRecord = {
      step,
      offset_ms: start - this.startedAt,
      duration_ms,
      ok,
      ...(detail === undefined ? {} : { detail }),
      ...(bound_ms === undefined ? {} : { bound_ms }),
      ...(balancers === undefined ? {} : { balancers }),
    };
    this.steps.push(rec);
    const took = formatMs(duration_ms);
    this.log.emit({
      level: ok ? 'info' : 'error',
      event: 'step',
      message: `${step} ${ok ? '✓' : '✗'} ${took}${detail ? ` — ${detail}` : ''}`,
      host: this.host,
      fields: { ...rec },
    });
    this.audit?.({
      release: this.release,
      step,
      start: new Date(start).toISOString(),
      duration_ms,
      result: ok ? 'ok' : 'failed',
      who: this.who,
      ...(detail === undefined ? {} : { detail }),
    });
  }
}
