/**
 * The fleet lease's piece on one host (`host.state/lease.json`), as the agent
 * and the orchestrator both see it. Plain data: the agent loads it on every
 * `deploy host lease`, and neither side may load a schema library for it.
 */

/** the version of the file this handoff writes; a higher one is a newer handoff's */
export const LEASE_VERSION = 1;
/** the holder renews every host's piece this often */
export const LEASE_RENEW_MS = 5_000;
/** a piece whose heartbeat is older than this is expired and may be taken over */
export const LEASE_TTL_MS = 30_000;
/** a heartbeat further than this in the host's future: a clock is off, the lease may be live */
export const LEASE_CLOCK_SLACK_MS = 5_000;

export interface LeaseHolder {
  /** the CI job: GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID */
  readonly ci?: string;
  readonly user: string;
  /** the machine the deployer runs on, by its name: shared by containers, pods, laptops */
  readonly host: string;
  readonly pid: number;
  /** which process `pid` is, where it is; absent in a lease of an older handoff */
  readonly process?: HolderProcess;
}

/**
 * A deployer's process, named for good: a host name is shared by two CI
 * containers on one VM and a pid by two PID namespaces, so only all three
 * prove that a pid seen by a taker is (or is not) the holder.
 */
export interface HolderProcess {
  /** `/proc/sys/kernel/random/boot_id`: this machine, since its last boot */
  readonly boot: string;
  /** `/proc/self/ns/pid`, as its link reads (`pid:[4026531836]`) */
  readonly pidns: string;
  /** field 22 of `/proc/<pid>/stat`: when the process started, in ticks since boot */
  readonly start: string;
}

/** A holder read from the wire or a file, with only the fields it may have; undefined when it is not one. */
export function leaseHolderOf(value: unknown): LeaseHolder | undefined {
  const h = value as Partial<LeaseHolder> | undefined;
  if (
    typeof h !== 'object' ||
    h === null ||
    typeof h.user !== 'string' ||
    typeof h.host !== 'string' ||
    typeof h.pid !== 'number' ||
    (h.ci !== undefined && typeof h.ci !== 'string')
  )
    return undefined;
  const p = h.process;
  const process =
    typeof p?.boot === 'string' && typeof p.pidns === 'string' && typeof p.start === 'string'
      ? { boot: p.boot, pidns: p.pidns, start: p.start }
      : undefined;
  if (p !== undefined && !process) return undefined;
  return {
    user: h.user,
    host: h.host,
    pid: h.pid,
    ...(h.ci ? { ci: h.ci } : {}),
    ...(process ? { process } : {}),
  };
}

/** What the deployer asks for: who it is and what it does. */
export interface LeaseRequest {
  /** random, per deployer run: only its holder renews or releases a piece */
  readonly id: string;
  readonly holder: LeaseHolder;
  /** `rollout`, `rollback`, `drain`, `undrain` */
  readonly command: string;
  readonly release?: string;
  /**
   * ids of holders this deployer has proven dead (a process of its own machine
   * and PID namespace that no longer exists): their pieces are taken over though unexpired
   */
  readonly replaces?: readonly string[];
}

/** One host's piece, as written: the host stamps `started` and `heartbeat` with its own clock. */
export interface LeaseRecord extends LeaseRequest {
  readonly version: number;
  /** ISO time the piece was taken */
  readonly started: string;
  /** ISO time of the last renewal */
  readonly heartbeat: string;
  /** how long after its heartbeat the piece expires */
  readonly ttlMs: number;
}

export type LeaseAction = 'take' | 'renew' | 'release' | 'read';

/** What `deploy host lease` answers. */
export interface LeaseAnswer {
  /** take/renew: the piece is ours now; release: it is no longer ours; read: someone holds it */
  readonly ok: boolean;
  /** the piece as it is after the call: ours, or the live holder's; none when free */
  readonly lease?: LeaseRecord;
  /** how old the holder's heartbeat is by the host's clock */
  readonly ageMs?: number;
  /** take: the expired piece this call replaced */
  readonly tookOver?: LeaseRecord & { readonly ageMs: number };
}

/** The describing part of a holder: `alice@laptop pid 4242 (https://github.com/…/runs/1)`. */
export function describeHolder(holder: LeaseHolder): string {
  return `${holder.user}@${holder.host} pid ${holder.pid}${holder.ci ? ` (${holder.ci})` : ''}`;
}

/** `deploy rollout 2026-11-30.1 by alice@laptop pid 4242`. */
export function describeLease(lease: LeaseRequest): string {
  const what = lease.release ? `${lease.command} ${lease.release}` : lease.command;
  return `deploy ${what} by ${describeHolder(lease.holder)}`;
}

/** A lease as this version writes it, whatever store it was read from. */
export function isLeaseRecord(v: Partial<LeaseRecord> | undefined): v is LeaseRecord {
  return (
    v?.version === LEASE_VERSION &&
    typeof v.id === 'string' &&
    v.id.length > 0 &&
    typeof v.command === 'string' &&
    (v.release === undefined || typeof v.release === 'string') &&
    leaseHolderOf(v.holder) !== undefined &&
    !Number.isNaN(Date.parse(v.started ?? '')) &&
    !Number.isNaN(Date.parse(v.heartbeat ?? '')) &&
    typeof v.ttlMs === 'number' &&
    v.ttlMs > 0
  );
}
