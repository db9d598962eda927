import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeAtomically } from './heartbeat.js';

interface Memory {
  /** when the current window of starts-without-health began */
  readonly since: number;
  readonly starts: number;
  readonly reportedAt?: number;
}

/**
 * A slot that crashes before it is ever healthy restarts again and again;
 * saying so on every start would flood the log. Each start is remembered in
 * a dot file beside the marks (readers skip dot files): the starts since the
 * slot's last healthy mark are counted, and reported once per grace window.
 */
export async function noteStart(
  marks: string,
  slot: string,
  now: number,
  graceMs: number,
  lastHealthyAt: number | undefined,
): Promise<{ starts: number; report: boolean }> {
  const file = path.join(marks, `.${slot}.starts`);
  let before: Memory | undefined;
  try {
    before = JSON.parse(await readFile(file, 'utf8')) as Memory;
  } catch {
    before = undefined;
  }
  // healthy since the window began: the count starts over
  const fresh = !before || (lastHealthyAt !== undefined && lastHealthyAt >= before.since);
  const memory: Memory =
    fresh || !before ? { since: now, starts: 1 } : { ...before, starts: before.starts + 1 };
  const report =
    memory.starts > 1 && (memory.reportedAt === undefined || now - memory.reportedAt >= graceMs);
  await writeAtomically(file, JSON.stringify(report ? { ...memory, reportedAt: now } : memory));
  return { starts: memory.starts, report };
}
