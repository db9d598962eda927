import type { LeaseRecord, LeaseRequest } from '../../protocol/lease.js';

/** Who held a piece the taker replaced or was refused by, and how old its heartbeat was. */
export interface HeldPiece {
  /** where the piece lives: a host of deploy.yml for the default store */
  readonly where: string;
  readonly lease: LeaseRecord;
  readonly ageMs: number;
}

/** A place of the lease left out unreachable (rollout.unreachable's store): its piece is not held. */
export interface SkippedPiece {
  readonly where: string;
  readonly reason: string;
}

export type LeaseTake =
  | {
      readonly ok: true;
      readonly tookOver: readonly HeldPiece[];
      /** left out, unreachable; taken at a renewal once they answer */
      readonly skipped?: readonly SkippedPiece[];
    }
  /** refused: a live lease of another deployer; nothing of the fleet is held */
  | { readonly ok: false; readonly holder: HeldPiece };

export type LeaseRenew =
  | {
      readonly ok: true;
      readonly unreachable: readonly string[];
      /** places skipped at the take whose piece this renewal took, now they answer */
      readonly rejoined?: readonly string[];
    }
  /** a piece is no longer ours: taken over after it expired, or removed */
  | { readonly ok: false; readonly where: string; readonly holder?: HeldPiece };

export interface LeaseView {
  readonly where: string;
  readonly lease?: LeaseRecord;
  readonly ageMs?: number;
  /** the piece could not be read (a garbage file, an agent that keeps none) */
  readonly problem?: string;
  /** the host could not be reached, and why (status names such a host already) */
  readonly unreachable?: string;
}

/**
 * Where the fleet lease lives. The default keeps a piece on every host
 * (host-store.ts), etcd one key (etcd/); stores.ts picks one by deploy.yml's
 * `lease.store`, and every store passes the same conformance suite
 * (test/support/lease-conformance.ts). `take` is all or nothing: a store that cannot take every piece
 * gives back what it took and refuses (or throws, exit 3, when a piece
 * cannot be reached) — the lease is never silently partial.
 */
export interface LeaseStore {
  /**
   * Reach the store before the first take, so the take's time is the lease's
   * own: the host store opens every host's agent session here, which the
   * command then reuses (preflight, the handshakes) rather than opening its own.
   */
  connect?(): Promise<void>;
  take(request: LeaseRequest): Promise<LeaseTake>;
  renew(request: LeaseRequest): Promise<LeaseRenew>;
  /** best effort; a piece left behind expires after its bound */
  release(request: LeaseRequest): Promise<void>;
  read(): Promise<readonly LeaseView[]>;
  /**
   * `deploy lease break`: the lease removed whoever holds it (an operator's
   * call, audited by the command); what was held, as read before.
   */
  break(request: LeaseRequest): Promise<readonly LeaseView[]>;
  /** let go of what the store opened itself (the command's connections are the command's) */
  close?(): void;
}
