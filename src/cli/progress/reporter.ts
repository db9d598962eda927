import type { Log, LogEvent } from '../../log.js';
import { printable } from '../../safe-text.js';
import { paint } from './paint.js';
import type { Screen } from './screen.js';
import type { Style } from './style.js';
import { Waits } from './waits.js';

/** Repeats a callback until stopped; a fake one in tests fires on demand. */
export interface Ticker {
  every(ms: number, tick: () => void): () => void;
}

export const realTicker: Ticker = {
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    // the progress never keeps a finished deploy alive
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** A TTY redraws the live lines this often; a log gets a heartbeat this often per wait. */
export const REDRAW_MS = 200;
export const HEARTBEAT_MS = 10_000;
const HEARTBEAT_CHECK_MS = 1000;

export interface ProgressDeps {
  readonly screen: Screen;
  readonly style: Style;
  readonly now: () => number;
  readonly ticker: Ticker;
  readonly verbose: boolean;
}

/**
 * The rollout's events as a person reads them: every step's start and end,
 * and while a host waits, a live line (TTY) or a heartbeat every 10 s (a log)
 * with the time against the step's bound and the balancer's latest word.
 */
export class ProgressReporter implements Log {
  private readonly waits = new Waits();
  private stopTicker: (() => void) | undefined;

  constructor(private readonly deps: ProgressDeps) {}

  emit(e: LogEvent): void {
    const now = this.deps.now();
    const changed = this.waits.see(e, now);
    const text = this.format(e);
    if (text !== undefined) this.deps.screen.line(text, e);
    if (changed && this.deps.style.live) this.redraw(now);
    this.schedule();
  }

  close(): void {
    this.stopTicker?.();
    this.stopTicker = undefined;
    this.deps.screen.close();
  }

  /** one tick of the clock: redraw the live lines, or print the heartbeats that are due */
  tick(): void {
    const now = this.deps.now();
    if (this.deps.style.live) {
      this.redraw(now);
      return;
    }
    for (const w of this.waits.list()) {
      if (now - w.beatAt < HEARTBEAT_MS) continue;
      w.beatAt = now;
      this.deps.screen.line(printable(this.waits.line(w, now)));
    }
  }

  private format(e: LogEvent): string | undefined {
    const shown = e.event === 'step.start' || e.event === 'wave' || e.level !== 'debug';
    if (!shown && !this.deps.verbose) return undefined;
    const { style } = this.deps;
    const tag =
      e.level === 'warn'
        ? `${paint(style, 'yellow', 'WARN')} `
        : e.level === 'error'
          ? `${paint(style, 'red', 'ERROR')} `
          : e.level === 'debug' && !shown
            ? 'debug '
            : '';
    return `${tag}${printable(`${e.host ? `${e.host}: ` : ''}${e.message}`)}`;
  }

  private redraw(now: number): void {
    const waits = this.waits.list();
    const width = Math.max(0, ...waits.map((w) => w.host.length));
    this.deps.screen.live(waits.map((w) => printable(this.waits.line(w, now, width))));
  }

  /** the ticker runs only while a host waits: a rollout between steps schedules nothing */
  private schedule(): void {
    if (this.waits.size > 0 && !this.stopTicker) {
      const ms = this.deps.style.live ? REDRAW_MS : HEARTBEAT_CHECK_MS;
      this.stopTicker = this.deps.ticker.every(ms, () => this.tick());
    } else if (this.waits.size === 0 && this.stopTicker) {
      this.stopTicker();
      this.stopTicker = undefined;
    }
  }
}
