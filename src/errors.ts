import { escapeControl } from './safe-text.js';

/**
 * Typed errors. Everything below `cli/` throws one of these for an expected stop;
 * `cli/main.ts` is the only place that turns them into a message and an exit code.
 * Anything else that reaches main is a bug and is reported as one.
 */

export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  blocked: 3,
  /** deployed every host it reached; rollout.unreachable: skip left the named hosts out */
  skipped: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class HandoffError extends Error {
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: ExitCode, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/** Bad flags, environment or arguments: exit 2. */
export class UsageError extends HandoffError {
  constructor(message: string) {
    super(message, ExitCode.usage);
  }
}

/** One problem in a config file, with where it is. */
export interface ConfigProblem {
  /** key path such as `hosts[1].address`, or '' for the document */
  readonly path: string;
  readonly message: string;
  /** `file:line:column` when known */
  readonly location?: string;
}

/** One line, whatever the file held: a key or value with a newline or ESC is escaped. */
export function formatProblem(p: ConfigProblem): string {
  const where = p.location ? ` (${p.location})` : '';
  const line = p.path ? `${p.path}: ${p.message}${where}` : `${p.message}${where}`;
  return escapeControl(line);
}

/** Bad config: every problem at once, one line each. Exit 2. */
export class ConfigError extends HandoffError {
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'), ExitCode.usage);
    this.problems = problems;
  }
}

/** The operation ran and failed (deploy, verify, an invariant): exit 1. */
export class OperationError extends HandoffError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.failed, options);
  }
}

/** One or more invariants between the timing numbers are broken: exit 1. */
export class InvariantError extends HandoffError {
  readonly ids: readonly string[];
  constructor(ids: readonly string[], message: string) {
    super(message, ExitCode.failed);
    this.ids = ids;
  }
}

/** Refused before anything changed (lock held, capacity guard, preflight): exit 3. */
export class BlockedError extends HandoffError {
  constructor(message: string) {
    super(message, ExitCode.blocked);
  }
}

/**
 * Stopped by an interrupt (Ctrl-C, a CI cancel) before anything changed — a
 * `--wait-lease` queue: exit 3, and the `--json` result says `cancelled: true`.
 */
export class CancelledError extends BlockedError {
  readonly cancelled = true;
}

/** The agent on a host is not the one this deploy ships (`deploy setup` installs it). */
export class AgentIdentityError extends BlockedError {
  /** the protocol's error code for it, whatever the class is called */
  static readonly code = 'agent-version';
}

/** Who holds a lock, as recorded beside it by the holder. */
export interface LockHolder {
  readonly what: string;
  readonly pid: number;
  readonly since: string;
  readonly message?: string;
  readonly host?: string;
  /** the holder's start time on its host (process-start.ts): pid + start name one process */
  readonly started?: string;
}

export class LockHeldError extends BlockedError {
  readonly holder: LockHolder | undefined;
  constructor(lockPath: string, holder: LockHolder | undefined) {
    const who = holder
      ? `${holder.what} (pid ${holder.pid}${holder.host ? ` on ${holder.host}` : ''}) since ${holder.since}${holder.message ? `: ${holder.message}` : ''}`
      : 'an unknown holder';
    super(`lock ${lockPath} is held by ${who}; wait for it to finish or run 'deploy lock status'`);
    this.holder = holder;
  }
}

/** A host could not be reached or answered something we cannot use: exit 3. */
export class HostUnreachableError extends BlockedError {
  readonly host: string;
  /**
   * true when the network did not carry us there (refused, no route, no
   * handshake in time, dropped): what rollout.unreachable: skip may leave out.
   * A changed host key, a refused login or a foreign agent never is.
   */
  readonly network: boolean;
  constructor(host: string, detail: string, { network = false }: { network?: boolean } = {}) {
    super(`${host}: ${detail}`);
    this.host = host;
    this.network = network;
  }
}

/** True for a host the network did not reach (HostUnreachableError.network). */
export function isNetworkUnreachable(error: unknown): boolean {
  return error instanceof HostUnreachableError && error.network;
}

/**
 * rollout.unreachable: skip: every host reached was deployed, and these were
 * left out because they could not be reached: exit 4, so CI can decide.
 */
export class SkippedHostsError extends HandoffError {
  readonly hosts: readonly string[];
  constructor(hosts: readonly string[], release: string) {
    const n = hosts.length;
    super(
      `deployed ${release}, ${n} host${n === 1 ? '' : 's'} skipped (unreachable, not on ${release}): ${hosts.join(', ')}; 'deploy verify' or the next rollout catches them up when they are back`,
      ExitCode.skipped,
    );
    this.hosts = hosts;
  }
}

/**
 * A host's agent answered with a failure (a `deploy host` result or a
 * session's reply): carries the agent's error code and the exit code it asked
 * for, when that is one of ours.
 */
export class AgentError extends HandoffError {
  readonly host: string;
  readonly code: string;
  constructor(host: string, code: string, message: string, exit: number) {
    const known = Object.values(ExitCode) as number[];
    super(`${host}: ${message}`, (known.includes(exit) ? exit : ExitCode.failed) as ExitCode);
    this.host = host;
    this.code = code;
  }
}

/**
 * Pass another program's exit status on (`deploy lock exec -- CMD`): that
 * program already said what went wrong, so main prints nothing.
 */
export class ExitStatus extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit status ${code}`);
    this.name = 'ExitStatus';
    this.code = code;
  }
}

export function isHandoffError(e: unknown): e is HandoffError {
  return e instanceof HandoffError;
}

/**
 * A host's error without the host's name in front: the caller prints the name
 * once (`web-1: connection refused`, not `web-1: web-1: connection refused`).
 */
export function hostError(host: string, e: unknown): string {
  const message = messageOf(e);
  return message.startsWith(`${host}: `) ? message.slice(host.length + 2) : message;
}

/** What an error says, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
