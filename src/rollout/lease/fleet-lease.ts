import type { Clock } from '../../clock.js';
import { BlockedError, CancelledError, messageOf } from '../../errors.js';
import type { Log } from '../../log.js';
import { formatMs } from '../../timing/duration.js';
import {
  LEASE_RENEW_MS,
  LEASE_TTL_MS,
  describeLease,
  type LeaseRecord,
  type LeaseRequest,
} from '../../protocol/lease.js';
import type { HolderVerdict } from './holder.js';
import type { HeldPiece, LeaseRenew, LeaseStore, LeaseTake } from './store.js';

/** how often a waiting deployer asks again */
export const LEASE_POLL_MS = 2_000;
/** a waiting deployer says it still waits this often (and whenever the holder changes) */
const WAIT_REPORT_MS = 15_000;

export interface LeaseDeps {
  readonly store: LeaseStore;
  readonly clock: Clock;
  readonly log: Log;
  /** an interrupt: a waiting deployer stops waiting */
  readonly signal: AbortSignal;
  /** whether a holder is proven gone: a process of this machine and PID namespace that no longer exists */
  readonly holderGone?: (holder: LeaseRecord['holder']) => HolderVerdict;
}

/** The fleet lease, held: renewed in the background until released. */
export interface HeldLease {
  readonly request: LeaseRequest;
  /** true when it was queued behind another deployer first */
  readonly waited: boolean;
  /** the deployers it waited behind, in order */
  readonly behind: readonly HeldPiece[];
  /** aborts when a renewal finds a piece is no longer ours */
  readonly lost: AbortSignal;
  /** stop renewing and give every piece back (idempotent) */
  release(): Promise<void>;
}

/**
 * Take the fleet lease before anything changes. Refused by default (exit 3,
 * naming the holder); with `waitMs` queue behind it, saying so, until it is
 * free or the wait runs out.
 */
export async function takeLease(
  deps: LeaseDeps,
  asked: LeaseRequest,
  waitMs?: number,
): Promise<HeldLease> {
  let request = asked;
  const { store, clock } = deps;
  const started = clock.now();
  await store.connect?.();
  const connectMs = clock.now() - started;
  const behind: HeldPiece[] = [];
  let reported = -Infinity;
  for (;;) {
    const take = await store.take(request);
    if (take.ok) {
      sayTaken(deps, take, request, behind.length > 0, { started, connectMs });
      return hold(deps, request, behind);
    }
    const holder = take.holder;
    // a deployer of this machine and PID namespace that died without giving its pieces back
    // (SIGKILL, a connection cut before its release): proven gone, its lease is taken over now;
    // any other holder's lease is left to expire (30 s after its last heartbeat)
    const verdict = request.replaces?.includes(holder.lease.id)
      ? undefined
      : deps.holderGone?.(holder.lease.holder);
    if (verdict?.gone) {
      sayTakingOver(deps.log, holder, verdict.why);
      request = { ...request, replaces: [...(request.replaces ?? []), holder.lease.id] };
      continue;
    }
    const waited = clock.now() - started;
    if (waitMs === undefined || waited >= waitMs)
      throw new BlockedError(
        refusal(holder, waitMs === undefined ? undefined : waited, verdict?.why),
      );
    const changed = behind.at(-1)?.lease.id !== holder.lease.id;
    if (changed) behind.push(holder);
    if (changed || clock.now() - reported >= WAIT_REPORT_MS) {
      reported = clock.now();
      sayWaiting(deps.log, holder, verdict?.why, { waited, waitMs });
    }
    await clock
      .sleep(Math.min(LEASE_POLL_MS, Math.max(1, waitMs - waited)), deps.signal)
      .catch((error: unknown) => {
        throw deps.signal.aborted ? cancelled(holder, deps.signal) : error;
      });
  }
}

type Taken = Extract<LeaseTake, { ok: true }>;

/** What a take found on its way (leases taken over, hosts skipped), and the take itself. */
function sayTaken(
  deps: LeaseDeps,
  take: Taken,
  request: LeaseRequest,
  waited: boolean,
  at: { readonly started: number; readonly connectMs: number },
): void {
  const { clock, log } = deps;
  for (const old of take.tookOver) {
    const expired = old.ageMs > old.lease.ttlMs;
    const why = expired
      ? `its heartbeat was ${formatMs(old.ageMs)} old (expired after ${formatMs(old.lease.ttlMs)})`
      : `that process was proven gone (heartbeat ${formatMs(old.ageMs)} old, not expired)`;
    log.emit({
      level: 'warn',
      event: 'lease.takeover',
      host: old.where,
      message: `took over ${expired ? 'an expired' : 'the'} fleet lease of ${describeLease(old.lease)}: ${why}`,
      fields: { holder: old.lease, heartbeat_age_ms: old.ageMs, expired },
    });
  }
  for (const s of take.skipped ?? [])
    log.emit({
      level: 'warn',
      event: 'lease.skipped',
      host: s.where,
      message: `unreachable: the fleet lease is held without its piece, taken when it answers again (${s.reason})`,
      fields: { reason: s.reason },
    });
  // a line of its own only after a wait: a routine take (and release) is debug, so a
  // command that stops at bad input after it still says one line
  log.emit({
    level: waited ? 'info' : 'debug',
    event: 'lease.taken',
    message: `took the fleet lease${waited ? ` after waiting ${formatMs(clock.now() - at.started)}` : ''}`,
    // connect_ms: reaching the store (the sessions the command goes on using), in waited_ms
    fields: { id: request.id, waited_ms: clock.now() - at.started, connect_ms: at.connectMs },
  });
}

/** A holder proven gone: its lease is taken over at the next take. */
function sayTakingOver(log: Log, holder: HeldPiece, why: string): void {
  log.emit({
    level: 'warn',
    event: 'lease.takeover',
    host: holder.where,
    message: `taking over the fleet lease of ${describeLease(holder.lease)}: ${why} (heartbeat ${formatMs(holder.ageMs)} ago, not expired)`,
    fields: { holder: holder.lease, heartbeat_age_ms: holder.ageMs },
  });
}

/** A queued deployer says whom it waits behind and for how long yet. */
function sayWaiting(
  log: Log,
  holder: HeldPiece,
  why: string | undefined,
  wait: { readonly waited: number; readonly waitMs: number },
): void {
  log.emit({
    level: 'info',
    event: 'lease.wait',
    host: holder.where,
    message: `waiting for the fleet lease, held by ${describeLease(holder.lease)}, heartbeat ${formatMs(holder.ageMs)} ago${notTaken(why)} (waited ${formatMs(wait.waited)} of ${formatMs(wait.waitMs)})`,
    fields: { holder: holder.lease, heartbeat_age_ms: holder.ageMs, waited_ms: wait.waited },
  });
}

/** Why a holder of this host name is not taken over, when it shares the name. */
const notTaken = (why: string | undefined): string =>
  why ? ` (${why}, so it is left to expire)` : '';

/** A queued job cancelled (GitHub's cancel-in-progress): routine, one line, nothing changed. */
function cancelled(holder: HeldPiece, signal: AbortSignal): CancelledError {
  const reason: unknown = signal.reason;
  const why =
    reason instanceof Error && /^SIG[A-Z]+$/.test(reason.message) ? ` (${reason.message})` : '';
  return new CancelledError(
    `cancelled${why} while waiting for the fleet lease held (on ${holder.where}) by ${describeLease(holder.lease)}; nothing was changed`,
  );
}

/** The one line a refused deployer prints. */
export function refusal(holder: HeldPiece, waitedMs?: number, why?: string): string {
  const where = holder.where;
  const age = formatMs(holder.ageMs);
  const waited = waitedMs === undefined ? '' : ` after waiting ${formatMs(waitedMs)}`;
  const hint = waitedMs === undefined ? '; wait for it, or queue with --wait-lease DURATION' : '';
  return `the fleet lease is held (on ${where}) by ${describeLease(holder.lease)}, heartbeat ${age} ago${notTaken(why)}${waited}${hint}`;
}

function hold(deps: LeaseDeps, request: LeaseRequest, behind: readonly HeldPiece[]): HeldLease {
  const { store, clock, log } = deps;
  const stop = new AbortController();
  const lost = new AbortController();
  // what holding cost, said when it is given back (the rollout bench reads it)
  const cost = { renewals: 0, renewMs: 0 };
  const renewing = (async () => {
    while (!stop.signal.aborted) {
      try {
        await clock.sleep(LEASE_RENEW_MS, stop.signal);
      } catch {
        return;
      }
      const renewStarted = clock.now();
      const renewed = await store.renew(request).catch((error: unknown) => {
        log.emit({ level: 'warn', event: 'lease.renew', message: messageOf(error) });
        return undefined;
      });
      cost.renewals++;
      cost.renewMs += clock.now() - renewStarted;
      if (renewed?.ok === false) {
        lost.abort(lostLease(log, renewed));
        return;
      }
      if (renewed) sayRenewed(log, renewed);
    }
  })();
  let released: Promise<void> | undefined;
  return {
    request,
    waited: behind.length > 0,
    behind,
    lost: lost.signal,
    release: () =>
      (released ??= (async () => {
        stop.abort();
        await renewing;
        const releaseStarted = clock.now();
        await store.release(request);
        log.emit({
          level: 'debug',
          event: 'lease.released',
          message: 'released the fleet lease',
          fields: {
            release_ms: clock.now() - releaseStarted,
            renewals: cost.renewals,
            renew_ms: cost.renewMs,
          },
        });
      })()),
  };
}

/** A renewal found a piece no longer ours: said, and the reason the holder stops with. */
function lostLease(log: Log, renewed: Extract<LeaseRenew, { ok: false }>): BlockedError {
  const by = renewed.holder ? `: now held by ${describeLease(renewed.holder.lease)}` : '';
  log.emit({
    level: 'error',
    event: 'lease.lost',
    host: renewed.where,
    message: `lost the fleet lease${by}; stopping at the next safe point`,
  });
  return new BlockedError(`lost the fleet lease on ${renewed.where}${by}`);
}

/** What a renewal that kept the lease found: places that answer again, places it could not reach. */
function sayRenewed(log: Log, renewed: Extract<LeaseRenew, { ok: true }>): void {
  for (const where of renewed.rejoined ?? [])
    log.emit({
      level: 'info',
      event: 'lease.rejoined',
      host: where,
      message: `${where} answers again: took its piece of the fleet lease`,
    });
  if (renewed.unreachable.length > 0)
    log.emit({
      level: 'warn',
      event: 'lease.renew',
      message: `could not renew the fleet lease on ${renewed.unreachable.join(', ')}; it expires there ${formatMs(LEASE_TTL_MS)} after its last heartbeat`,
    });
}
