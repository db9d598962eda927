import { UsageError } from '../errors.js';
import { reportFromAudit } from './from-audit.js';
import { reportFromStream } from './from-stream.js';
import type { Report } from './model.js';

export interface ReadOptions {
  /** the file's name, for messages */
  readonly name: string;
  /** the audit's release to draw; default: the newest one in it */
  readonly release?: string;
  /** a host's raw audit.jsonl names no host: this one */
  readonly host?: string;
}

const WHAT =
  "give the output of 'deploy rollout --json', 'deploy audit --json' or a host's audit.jsonl";

function parseLines(text: string, name: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${name}:${i + 1}: not a JSON line; ${WHAT}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new UsageError(`${name}:${i + 1}: not a JSON object; ${WHAT}`);
    lines.push(value as Record<string, unknown>);
  });
  return lines;
}

/**
 * A rollout's `--json` stream, `deploy audit --json`'s result, or a host's
 * audit.jsonl, as one Report. Which one it is shows in its lines: audit
 * lines have a `start` and no `event`; the audit command's result has `entries`.
 */
export function readReport(text: string, o: ReadOptions): Report {
  const lines = parseLines(text, o.name);
  if (lines.length === 0) throw new UsageError(`${o.name}: empty; ${WHAT}`);
  const last = lines.at(-1);
  if (last?.event === 'result' && Array.isArray(last.entries))
    return reportFromAudit(last.entries as unknown[], o);
  if (lines.some((l) => typeof l.event === 'string')) return reportFromStream(lines, o.name);
  return reportFromAudit(
    lines.map((l) => (o.host === undefined ? l : { ...l, host: o.host })),
    o,
  );
}
