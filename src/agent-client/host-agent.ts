import type { ServiceReading } from '../protocol/results.js';
import type { AuditEntry } from '../protocol/results.js';
import type { LeaseAction, LeaseAnswer, LeaseRequest } from '../protocol/lease.js';
import type { ReleaseFile } from '../host/release-files.js';
import type { ExecResult } from '../remote/transport.js';
import type { EnvVars } from '../host/release-env.js';
import type { ReleaseInventory } from '../host/release-inventory.js';
import type {
  ArtifactState,
  HelloData,
  HostStatus,
  StartReport,
  StopReport,
  SwitchResult,
  VerifyOptions,
  VerifyReport,
} from '../protocol/results.js';

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
 * What the orchestrator asks of one host. AgentClient implements it over a
 * Transport; unit tests of the rollout pass a scripted fake.
 */
export interface HostAgent {
  readonly host: string;
  hello(): Promise<HelloData>;
  /** `node -p process.versions.node` on the host, not through the agent (node-check.ts) */
  nodeVersion(): Promise<ExecResult>;
  status(): Promise<HostStatus>;
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
  /** whether the release is here from this artifact, else the room for it and what would refuse it */
  artifactState?(release: string, sha256: string): Promise<ArtifactState>;
  /** the releases on the host, newest first, with current and previous */
  releases?(): Promise<ReleaseInventory>;
  /** the services' own counts in host.state, by process (rollout.canary.source: service) */
  serviceCounts?(): Promise<ServiceReading>;
  /**
   * each target (`port` or `ipv4:port`) → whether a LISTEN socket on the host
   * takes it; a target missing from the answer: the host cannot tell
   */
  listening?(targets: readonly string[]): Promise<Readonly<Record<string, boolean>>>;
  /** remove all but the newest `keep` releases, never current or previous */
  prune?(keep: number): Promise<{ removed: string[]; kept: string[] }>;
  /** this host's piece of the fleet lease; absent: a fake that keeps none */
  lease?(action: LeaseAction, request?: LeaseRequest): Promise<LeaseAnswer>;
  holdLock(what: string, message: string): Promise<HeldLock>;
  /** start the lock holder ahead (prepare), so taking the lock later is cheap */
  openSession?(): Promise<void>;
  /** end a session that never took the lock */
  close?(): void;
  drain(by: string, leaseMs: number, release: string): Promise<void>;
  undrain(): Promise<void>;
  /**
   * stop what runs and prove it stopped; `release` is the one about to start,
   * whose stop adopts services already running on a host with no release yet
   */
  stop(release: string): Promise<StopReport>;
  switchTo(release: string): Promise<SwitchResult>;
  /** every service, or only `services`; with ifStopped only what its status says is stopped */
  start(services?: readonly string[], options?: { ifStopped?: boolean }): Promise<StartReport>;
  verify(options: VerifyOptions): Promise<VerifyReport>;
}
