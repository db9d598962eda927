import type { AuditEntry, StartReport } from '../protocol/results.js';
import type { AgentOp, ArgsOf, ResultOf } from '../protocol/ops.js';
import type { ReleaseFile } from '../host/release-files.js';
import type { ExecResult } from '../remote/transport.js';
import type { EnvVars } from '../host/release-env.js';

/** The host lock, held by a long-lived agent on the host until released. */
export interface HeldLock {
  /** release the lock and wait until the agent confirms */
  release(): Promise<void>;
  /** append a line to the host's audit.jsonl through the holding agent, at once */
  audit(entry: AuditEntry): void;
  /**
   * resolves at once if the agent (or the SSH connection) goes away while we
   * hold it; its `why` says which of the two it was
   */
  readonly lost: Promise<LockLoss>;
}

/** How a held lock went away. */
export interface LockLoss {
  /** asked only by whoever needs it: without the holder's last word, it probes the connection */
  why(): Promise<LockLossCause>;
}

export interface LockLossCause {
  /**
   * the connection still answers: the holder ended on its own (its lock went
   * stale, it ended its session, it was killed) and a new one can be started
   * over the same connection; false: the connection dropped
   */
  readonly connected: boolean;
  /** the holder's own last word on the session, when it said one */
  readonly said?: {
    /** its error (a lock lost to staleness: "lost the host lock … stale threshold …") */
    readonly error?: string;
    /** why it stopped holding without an error (`silence`: no heartbeat reached it) */
    readonly reason?: string;
  };
}

/** An artifact as the orchestrator read it: a .tar.gz on this machine, its sha256 and size. */
export interface LocalArtifact {
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
  /** what it extracts to, about (the gzip trailer's size of the tar): the room an install takes */
  readonly unpackedBytes?: number;
}

export interface ShipResult {
  /** false: the host had this release from this very artifact already */
  readonly uploaded: boolean;
  readonly bytes: number;
}

/**
 * What the orchestrator asks of one host: any operation of the table
 * (protocol/ops.ts) through `run`, plus the few calls that are more than
 * one operation's arguments. AgentClient implements it over a Transport;
 * unit tests of the rollout pass a fake that answers by op (test/support/fake-fleet.ts).
 */
export interface HostAgent {
  readonly host: string;
  /** one operation, where and as long as the table says */
  run<K extends AgentOp>(op: K, args: ArgsOf<K>): Promise<ResultOf<K>>;
  /** `node -p process.versions.node` on the host, not through the agent (node-check.ts) */
  nodeVersion(): Promise<ExecResult>;
  /** write the release directory (files, sha256-checked, + .env with `env`) and prepare it, without touching what runs */
  publish(release: string, files?: readonly ReleaseFile[], env?: EnvVars): Promise<void>;
  /**
   * put the artifact into releases/<id>/ (uploaded, sha256-checked, extracted, renamed
   * into place), unless that release came from it already; before `publish`
   */
  shipArtifact?(
    release: string,
    artifact: LocalArtifact,
    onProgress?: (sent: number, total: number) => void,
  ): Promise<ShipResult>;
  /** every service, or only `services`; with ifStopped only what its status says is stopped */
  start(services?: readonly string[], options?: { ifStopped?: boolean }): Promise<StartReport>;
  /** take the host lock (a `lock` call in the open session, else a `lock-hold` of its own) */
  holdLock(what: string, message: string): Promise<HeldLock>;
  /** start the lock holder ahead (prepare), so taking the lock later is cheap */
  openSession?(): Promise<void>;
  /** end a session that never took the lock */
  close?(): void;
}
