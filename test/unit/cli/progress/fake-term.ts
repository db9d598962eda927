import type { LogEvent } from '../../../../src/log.js';
import type { Ticker } from '../../../../src/cli/progress/reporter.js';
import type { TermStream } from '../../../../src/cli/progress/style.js';

/** A stream that keeps what was written; `screen()` replays the cursor moves a terminal would. */
export class FakeTerm implements TermStream {
  readonly writes: string[] = [];
  constructor(
    readonly isTTY = true,
    readonly columns = 100,
  ) {}
  write(text: string): boolean {
    this.writes.push(text);
    return true;
  }
  get all(): string {
    return this.writes.join('');
  }
  /** the lines a terminal shows now, after ESC[1A ESC[2K (up, clear) are applied; colours are not text */
  screen(): string[] {
    const rows: string[] = [''];
    // eslint-disable-next-line no-control-regex
    const shown = this.all.replace(/\u001b\[\d+m/g, '');
    // eslint-disable-next-line no-control-regex
    for (const token of shown.split(/(\u001b\[1A\u001b\[2K|\n)/)) {
      if (token === '\n') rows.push('');
      else if (token === '\u001b[1A\u001b[2K') {
        rows.pop();
        rows[rows.length - 1] = '';
      } else if (token) rows[rows.length - 1] += token;
    }
    return rows.slice(0, -1);
  }
}

/** A ticker that fires only when the test says so. */
export class ManualTicker implements Ticker {
  private readonly ticks = new Set<() => void>();
  every(_ms: number, tick: () => void): () => void {
    this.ticks.add(tick);
    return () => this.ticks.delete(tick);
  }
  get running(): number {
    return this.ticks.size;
  }
  fire(): void {
    for (const tick of [...this.ticks]) tick();
  }
}

export const start = (host: string, step: string, boundMs?: number): LogEvent => ({
  level: 'debug',
  event: 'step.start',
  message: `${step}…`,
  host,
  fields: { step, ...(boundMs === undefined ? {} : { boundMs }) },
});

export const end = (host: string, step: string, ok = true): LogEvent => ({
  level: ok ? 'info' : 'error',
  event: 'step',
  message: `${step} ${ok ? '✓' : '✗'} 1.0s`,
  host,
  fields: { step, ok },
});

export const word = (host: string, state: string, reason?: string): LogEvent => ({
  level: 'debug',
  event: 'balancer.state',
  message: `${host}:8080 ${state}`,
  host,
  fields: { step: 'await-out', state, ...(reason ? { reason } : {}) },
});
