import type { LogEvent } from '../../log.js';
import { decorate } from './paint.js';
import type { Style, TermStream } from './style.js';

/** Where the rollout's human output lands: a terminal, a CI log, a GitHub Actions log. */
export interface Screen {
  /** one printable event line (stderr) */
  line(text: string, event?: LogEvent): void;
  /** a block of text: the plan, the result (stdout) */
  text(text: string): void;
  /** the hosts waiting right now, one line each, kept below the other lines on a TTY */
  live(lines: readonly string[]): void;
  close(): void;
}

const UP_AND_CLEAR = '\u001b[1A\u001b[2K';

/**
 * A terminal or a plain log. On a TTY the live lines are redrawn in place:
 * erased before anything else is written, drawn again after it, each cut to
 * the width so that none wraps (a wrapped line would be erased only in part).
 */
export function termScreen(err: TermStream, out: TermStream, style: Style): Screen {
  let current: readonly string[] = [];
  let shown = 0;
  const erase = (): string => {
    const s = UP_AND_CLEAR.repeat(shown);
    shown = 0;
    return s;
  };
  const draw = (): string => {
    if (!style.live) return '';
    const width = Math.max(20, (err.columns ?? 80) - 1);
    shown = current.length;
    return current.map((l) => `${decorate(style, l.slice(0, width))}\n`).join('');
  };
  return {
    line(text) {
      err.write(`${erase()}${decorate(style, text)}\n${draw()}`);
    },
    text(text) {
      if (shown > 0) err.write(erase());
      out.write(`${decorate(style, text)}\n`);
      if (current.length > 0) err.write(draw());
    },
    live(lines) {
      if (!style.live) return;
      current = lines;
      err.write(`${erase()}${draw()}`);
    },
    close() {
      current = [];
      if (shown > 0) err.write(erase());
    },
  };
}
