/** The data each agent operation returns: shared by the agent and its client. */
import type { LockHolder } from '../../errors.js';
import type { HelloData } from './protocol.js';

export interface ServiceVerdict {
  readonly name: string;
  readonly ok: boolean;
  readonly code: string;
  readonly latency_ms: number;
  /** a 503 that says the host is draining */
  readonly draining?: boolean;
  /** consecutive passes reached */
  readonly passes: number;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly services: readonly ServiceVerdict[];
  readonly elapsed_ms: number;
}

export interface VerifyOptions {
  readonly successes: number;
  readonly timeoutMs: number;
  /** while drained, a 503 that says "draining" counts as answering */
  readonly allowDraining: boolean;
}

export interface DrainMarkerData {
  readonly by: string;
  readonly since: string;
  readonly until: string;
  readonly release?: string;
}

export interface HostStatus {
  readonly host: string;
  readonly release: string | null;
  readonly previous: string | null;
  readonly releases: readonly string[];
  readonly lock: { readonly locked: boolean; readonly holder?: LockHolder };
  readonly draining: DrainMarkerData | null;
  readonly watchdog: Readonly<Record<string, unknown>> | null;
}

export interface SwitchResult {
  readonly previous: string | null;
  readonly current: string;
}

export interface AuditEntry {
  readonly release: string;
  readonly step: string;
  readonly start: string;
  readonly duration_ms: number;
  readonly result: 'ok' | 'failed' | 'rolled-back' | 'interrupted' | 'skipped';
  readonly who: string;
  readonly detail?: string;
}

export type { HelloData };
