import type { Log, LogEvent } from '../log.js';
import { maskUrlPasswords, printable, secretMask } from '../safe-text.js';

/**
 * The only place that writes to the terminal. Human mode: events as lines on
 * stderr, results on stdout. JSON mode: NDJSON events on stdout, ending with
 * `{"event":"result","ok":…}`.
 */
export interface Output extends Log {
  readonly json: boolean;
  /** a block of human-readable text (tables, diagrams); ignored in JSON mode */
  text(text: string): void;
  /** the final result: in JSON mode the last line, in human mode nothing */
  result(ok: boolean, data?: Record<string, unknown>): void;
  /** a bare JSON document (for `deploy schema`) */
  raw(text: string): void;
}

const levelTag: Record<LogEvent['level'], string> = {
  debug: 'debug',
  info: 'info',
  warn: 'WARN',
  error: 'ERROR',
};

/** JSON escapes control characters itself; a URL's password and a secret are masked in it too. */
function jsonLine(value: unknown): string {
  return `${maskUrlPasswords(JSON.stringify(secretMask.maskDeep(value)))}\n`;
}

export function createOutput(options: { json: boolean; verbose?: boolean }): Output {
  const { json } = options;
  return {
    json,
    emit(e: LogEvent): void {
      if (json) {
        process.stdout.write(jsonLine({ ...e, time: new Date().toISOString() }));
        return;
      }
      if (e.level === 'debug' && !options.verbose) return;
      const host = e.host ? `${e.host}: ` : '';
      const tag = e.level === 'info' ? '' : `${levelTag[e.level]} `;
      process.stderr.write(`${tag}${printable(`${host}${e.message}`)}\n`);
    },
    text(text: string): void {
      if (!json) process.stdout.write(`${printable(text.replace(/\n$/, ''))}\n`);
    },
    result(ok: boolean, data?: Record<string, unknown>): void {
      if (json) process.stdout.write(jsonLine({ event: 'result', ok, ...data }));
    },
    raw(text: string): void {
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    },
  };
}
