import type { Log, LogEvent } from '../log.js';
import { printable } from '../safe-text.js';
import { JsonStream } from './json-stream.js';
import { forLocale } from './progress/paint.js';
import { toStderr, toStdout } from './stdio.js';

/**
 * The only place that writes to the terminal. Human mode: events as lines on
 * stderr, results on stdout. JSON mode: NDJSON events on stdout (snake_case,
 * json-keys.ts), ending with one `{"event":"result",…}` line that main writes
 * once it knows the exit code (json-stream.ts).
 */
export interface Output extends Log {
  readonly json: boolean;
  /** a block of human-readable text (tables, diagrams); ignored in JSON mode */
  text(text: string): void;
  /** the command's result: in JSON mode the data of the last line, in human mode nothing */
  result(ok: boolean, data?: Record<string, unknown>): void;
  /** a bare JSON document (for `deploy schema`) */
  raw(text: string): void;
}

/** The process's NDJSON stream on stdout; main finishes it with the exit code. */
export const stdoutJson = new JsonStream(toStdout);

const levelTag: Record<LogEvent['level'], string> = {
  debug: 'debug',
  info: 'info',
  warn: 'WARN',
  error: 'ERROR',
};

export function createOutput(options: {
  json: boolean;
  verbose?: boolean;
  stream?: JsonStream;
}): Output {
  const { json } = options;
  const stream = options.stream ?? stdoutJson;
  return {
    json,
    emit(e: LogEvent): void {
      if (json) {
        stream.event(e, new Date());
        return;
      }
      if (e.level === 'debug' && !options.verbose) return;
      const host = e.host ? `${e.host}: ` : '';
      const tag = e.level === 'info' ? '' : `${levelTag[e.level]} `;
      toStderr(forLocale(`${tag}${printable(`${host}${e.message}`)}\n`));
    },
    text(text: string): void {
      if (!json) toStdout(forLocale(`${printable(text.replace(/\n$/, ''))}\n`));
    },
    result(ok: boolean, data?: Record<string, unknown>): void {
      if (json) stream.result(ok, data);
    },
    raw(text: string): void {
      toStdout(text.endsWith('\n') ? text : `${text}\n`);
    },
  };
}
