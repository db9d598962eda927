/** The data each agent operation returns: shared by the agent and its client. */
import type { LockHolder } from '../errors.js';
import type { ResponseCountsFile } from '../health/response-counts.js';

export interface ServiceVerdict {
  readonly name: string;
  readonly ok: boolean;
  readonly code: string;
  readonly latency_ms: number;
  /** a 503 that says the host is draining */
  readonly draining?: boolean;
  /** consecutive passes reached */
  readonly passes: number;
  /** the release the service says it runs (`x-release`), when it says so */
  readonly release?: string;
  /** why, for a failure that has more to say than its code (release-mismatch) */
  readonly detail?: string;
}

/**
 * `artifact` without `file`: the release is here from this artifact, or where
 * to upload it, with what would make its install fail (asked in preflight too).
 */
export type ArtifactState =
  | { readonly present: true }
  | {
      readonly present: false;
      readonly upload: string;
      /** bytes free to this user on the filesystem of releases/ */
      readonly freeBytes?: number;
      /** the release is live here from another artifact: its install would be refused */
      readonly liveOther?: boolean;
    };

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
  /**
   * expect_release accepts an answer without x-release: a rollback or repair
   * returning to a release built before it named itself (another id still fails)
   */
  readonly releaseOptional?: boolean;
}

export interface DrainMarkerData {
  readonly by: string;
  readonly since: string;
  readonly until: string;
  readonly release?: string;
}

/** compose hosts: the live release's compose.yml hash and the compose command found, or why none */
export type ComposeStatus =
  | { readonly sha256: string | null; readonly command: readonly string[] }
  | { readonly sha256: string | null; readonly error: string };

export interface HostStatus {
  readonly host: string;
  /** sha256 of the host config the agent reads (what `deploy setup` published); null if unreadable */
  readonly config_sha256?: string | null;
  readonly release: string | null;
  readonly compose?: ComposeStatus;
  readonly previous: string | null;
  readonly releases: readonly string[];
  readonly lock: { readonly locked: boolean; readonly holder?: LockHolder };
  readonly draining: DrainMarkerData | null;
  readonly watchdog: Readonly<Record<string, unknown>> | null;
  /** the last stop of a release on this host, when one was recorded (last-stop.ts) */
  readonly lastStop?: LastStop | null;
}

/** What the last stop on a host saw: which services needed SIGKILL. */
export interface LastStop {
  /** ISO time the stop ended */
  readonly at: string;
  readonly release: string;
  /** services that did not exit within drain.stop_timeout of SIGTERM */
  readonly killed: readonly string[];
}

/** What `stop` did, and whether every service was proven stopped. */
export interface StopReport {
  /** false when no release was live and nothing answered: nothing to stop */
  readonly stopped: boolean;
  /** services found running on a host with no release yet, stopped before the first */
  readonly adopted: readonly string[];
  readonly services: readonly ServiceProof[];
  /** every service proven stopped (or opted out with stop_proof: false) */
  readonly proven: boolean;
}

/** One service after a stop: proven stopped, or what still answers. */
export interface ServiceProof {
  readonly service: string;
  readonly proven: boolean;
  /** what proved it, or what still answers (`127.0.0.1:8080 still accepts connections`) */
  readonly detail: string;
  /**
   * It exited by SIGKILL (a container's exit code 137): it did not end within
   * drain.stop_timeout of SIGTERM, so the requests it still held were cut.
   */
  readonly killed?: true;
}

export interface StartReport {
  readonly started: readonly string[];
  /** with ifStopped: found running, left alone */
  readonly running: readonly string[];
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

export interface HelloData {
  readonly version: string;
  readonly protocol: number;
  /** sha256 of the agent file itself: the orchestrator compares it with its own bundle */
  readonly sha256: string;
  readonly node: string;
}

export interface AuditRead {
  /** oldest first, as written */
  readonly entries: readonly AuditEntry[];
  /** older lines (since `since`) were left out to stay within the bound */
  readonly truncated: boolean;
  /** lines that are not an audit entry (a torn write, a hand edit) */
  readonly skipped: number;
}

export interface ReleaseEntry {
  readonly id: string;
  /** when the release directory was put in place (its mtime), ms since the epoch */
  readonly createdMs: number;
  /** how long ago, by this host's clock */
  readonly ageMs: number;
  readonly bytes: number;
  /** the sha256 of the artifact it came from, when it came from one */
  readonly artifactSha256: string | null;
  /** the sha256 of its compose.yml (compose runtime), else null */
  readonly composeSha256: string | null;
}

export interface ReleaseInventory {
  readonly current: string | null;
  readonly previous: string | null;
  /** newest first */
  readonly releases: readonly ReleaseEntry[];
}

/** `logs` and `exec`: how the command on the host ended (its output came as `output` events) */
export interface CommandExit {
  readonly release: string;
  /** the exit code, or 128 + the signal's number */
  readonly code: number;
}

/** A host's services' own counts (the `service-counts` op): `<pid>-<started>` → that process's latest counts */
export interface ServiceReading {
  readonly processes: Readonly<Record<string, ResponseCountsFile>>;
}
