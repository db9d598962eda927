import { messageOf } from '../../errors.js';
import type { Clock } from '../../clock.js';
import type { Runtime } from '../runtime/runtime.js';

/**
 * One check's answer. `code` is short and machine-readable (`ok`, `timeout`,
 * `refused`, `status-503`, `stale-marks`, …); `detail` is for humans and never
 * carries a response body, which may hold secrets.
 */
export interface CheckResult {
  readonly ok: boolean;
  readonly code: string;
  readonly latency_ms: number;
  /** HTTP 503 only: true when the service says it is draining on purpose */
  readonly draining?: boolean;
  /** HTTP only: the release the answer names in `x-release`, when it names exactly one */
  readonly release?: string;
  readonly detail?: string;
}

export interface CheckDeps {
  /** measures latency; socket deadlines run on real timers (see http.ts) */
  readonly clock: Clock;
  /** host.state: heartbeat directories are relative to it */
  readonly state: string;
  /** the service being checked, for the runtime check */
  readonly service: string;
  /** required by the runtime check */
  readonly runtime?: Runtime;
  /** the release that should answer (what `current` points at), for `expect_release` */
  readonly release?: string;
  /** an answer without x-release passes expect_release (a rollback to a release older than it) */
  readonly releaseOptional?: boolean;
  readonly signal?: AbortSignal;
}

/** A network error as a short code. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'dns';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'unreachable';
    case 'ABORT_ERR':
      return 'aborted';
    default:
      return 'error';
  }
}

export function errorDetail(error: unknown): string {
  return messageOf(error);
}
