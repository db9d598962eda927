/**
 * The lines of the `deploy host …` agent protocol: the orchestrator runs the
 * agent over SSH, the agent answers JSON lines on stdout — events while it
 * works, exactly one `result` line at the end — and exits non-zero on failure.
 * Which operations there are is ops.ts.
 */
import type { Level, Log } from '../log.js';
import type { CallArgs } from './args.js';
import type { AgentOp } from './ops.js';

/** Bump when a line's shape or an operation's meaning changes. */
export const PROTOCOL = 1;

export interface AgentEventLine {
  readonly type: 'event';
  readonly level: Level;
  readonly event: string;
  readonly message: string;
  readonly fields?: Record<string, unknown>;
}

/**
 * A session call that failed because the host lock went from under it (stale:
 * its holder froze): the holder ends right after this reply.
 */
export const LOCK_LOST = 'lock-lost';

export interface AgentErrorInfo {
  /** a short machine code: lock-held, bad-request, failed, … */
  readonly code: string;
  readonly message: string;
  /** the exit code the orchestrator should end with if it gives up on this */
  readonly exit: number;
}

export type AgentResultLine =
  | { readonly type: 'result'; readonly ok: true; readonly data: unknown }
  | { readonly type: 'result'; readonly ok: false; readonly error: AgentErrorInfo };

/** `lock-hold` says this once it holds the lock; it then waits for stdin to close. */
export interface AgentLockedLine {
  readonly type: 'locked';
  readonly holder: Record<string, unknown>;
}

/**
 * The answer to one `{"call": {id, op, args}}` line sent to a holding
 * `lock-hold`: the operations of a deploy run inside the process that holds
 * the lock, one SSH channel, no process start per step.
 */
export type AgentReplyLine =
  | { readonly type: 'reply'; readonly id: number; readonly ok: true; readonly data: unknown }
  | {
      readonly type: 'reply';
      readonly id: number;
      readonly ok: false;
      readonly error: AgentErrorInfo;
    };

/** One operation sent down a holding `lock-hold`'s stdin, answered by a `reply` line. */
export interface AgentCall {
  readonly id: number;
  readonly op: AgentOp;
  readonly args: CallArgs;
}

/** `lock-hold --defer` is up and waits for a `lock` call. */
export interface AgentReadyLine {
  readonly type: 'ready';
}

export type AgentLine =
  AgentEventLine | AgentResultLine | AgentLockedLine | AgentReplyLine | AgentReadyLine;

export function encodeLine(line: AgentLine): string {
  return `${JSON.stringify(line)}\n`;
}

/** One line of agent output; undefined for anything that is not a protocol line. */
export function decodeLine(text: string): AgentLine | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const type = (value as { type?: unknown }).type;
  if (type === 'event' || type === 'locked' || type === 'ready') return value as AgentLine;
  if (type === 'reply' && typeof (value as { id?: unknown }).id === 'number')
    return value as AgentReplyLine;
  if (type === 'result' && typeof (value as { ok?: unknown }).ok === 'boolean') {
    const r = value as AgentResultLine;
    if (!r.ok && (typeof r.error !== 'object' || r.error === null)) return undefined;
    return r;
  }
  return undefined;
}

/** An agent's event line, re-emitted on the orchestrator's log under the host's name. */
export function relayEvent(log: Log, host: string, line: AgentEventLine): void {
  log.emit({
    level: line.level,
    event: line.event,
    message: line.message,
    host,
    fields: line.fields,
  });
}
