import type { ConfigProblem } from '../errors.js';
import type { LogEvent } from '../log.js';
import { maskUrlPasswords, secretMask } from '../safe-text.js';
import { toJsonShape } from './json-keys.js';

/** Bumped when a field of the result line changes meaning or goes away (docs/json.md). */
export const SCHEMA_VERSION = 1;

/** One config problem as the result line carries it. */
export interface JsonProblem {
  readonly code: string;
  readonly message: string;
  readonly path: string;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
}

/** What main knows of a run that did not end well. */
export interface JsonFailure {
  readonly message: string;
  readonly problems?: readonly ConfigProblem[];
  /** stopped by an interrupt before anything changed (a cancelled --wait-lease queue) */
  readonly cancelled?: true;
}

/** JSON escapes control characters itself; a URL's password and a secret are masked in it too. */
export function jsonLine(value: unknown): string {
  return `${maskUrlPasswords(JSON.stringify(secretMask.maskDeep(toJsonShape(value))))}\n`;
}

/** A stable code for a config problem, from what the config layer says of it. */
function problemCode(p: ConfigProblem): string {
  if (/^unknown key/.test(p.message)) return 'unknown-key';
  if (/^required\b/i.test(p.message)) return 'required';
  if (/^invalid YAML/.test(p.message)) return 'invalid-yaml';
  if (!p.location && !p.path) return 'unreadable';
  return 'invalid';
}

export function jsonProblem(p: ConfigProblem): JsonProblem {
  const at = p.location ? /^(.*):(\d+):(\d+)$/.exec(p.location) : null;
  return {
    code: problemCode(p),
    message: p.message,
    path: p.path,
    ...(at ? { file: at[1], line: Number(at[2]), column: Number(at[3]) } : {}),
  };
}

/**
 * The NDJSON stream on stdout. Events go out as they come; the command's
 * result is held back until main knows the exit code, so every `--json` run
 * ends with exactly one result line — also when the config is bad, a flag is
 * wrong or a host is unreachable, where no command got to write one.
 */
export class JsonStream {
  private pending: { ok: boolean; data: Record<string, unknown> } | undefined;
  private finished = false;

  constructor(private readonly write: (text: string) => void) {}

  /** a new run: main runs once per process, and once per test */
  start(): void {
    this.pending = undefined;
    this.finished = false;
  }

  event(e: LogEvent, time: Date): void {
    if (this.finished) return;
    this.write(jsonLine({ ...e, time: time.toISOString() }));
  }

  /** the command's own result; a later one replaces it */
  result(ok: boolean, data: Record<string, unknown> = {}): void {
    this.pending = { ok, data };
  }

  /** the one result line: the command's data, the exit code and, on failure, why */
  finish(exitCode: number, failure?: JsonFailure): void {
    if (this.finished) return;
    this.finished = true;
    const ok = exitCode === 0 && (this.pending?.ok ?? true);
    // the command's data never overrides what main decided
    const { event: _e, ok: _o, exitCode: _x, ...data } = this.pending?.data ?? {};
    this.write(
      jsonLine({
        event: 'result',
        schemaVersion: SCHEMA_VERSION,
        ok,
        exitCode,
        ...data,
        ...(failure ? { error: failure.message } : {}),
        ...(failure?.problems ? { problems: failure.problems.map(jsonProblem) } : {}),
        ...(failure?.cancelled ? { cancelled: true } : {}),
      }),
    );
  }
}
