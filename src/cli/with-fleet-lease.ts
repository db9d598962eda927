import { systemClock } from '../clock.js';
import type { Config, HostConfig } from '../config/types.js';
import { parseDuration } from '../config/kit/duration.js';
import type { Log } from '../log.js';
import { takeLease, type HeldLease } from '../rollout/lease/fleet-lease.js';
import { holderGone, leaseRequest, thisProcess } from '../rollout/lease/holder.js';
import type { LeaseHolder } from '../protocol/lease.js';
import type { LeaseStore } from '../rollout/lease/store.js';
import { leaseStoreOf } from '../rollout/lease/stores.js';
import type { Connections } from './connections.js';
import { whoAmI } from './connections.js';

/**
 * deploy.yml's store of the fleet lease; the hosts store reaches the hosts
 * over these connections. `skipUnreachable`: a host the network does not
 * reach is left out of the lease (a rollout's preflight then applies
 * rollout.unreachable to the hosts it deploys), so a dead host outside
 * `--hosts` never blocks it.
 */
export function fleetLeaseStore(
  config: Config,
  connections: Connections,
  { skipUnreachable = false }: { skipUnreachable?: boolean } = {},
): Promise<LeaseStore> {
  return leaseStoreOf(config, {
    agentOf: (h: HostConfig) => connections.agent(h),
    env: process.env,
    skipUnreachable,
  });
}

/** `--wait-lease DURATION`, read: undefined when not given (refuse at once). */
export function parseWaitLease(text: string | undefined): number | undefined {
  return text === undefined ? undefined : parseDuration(text, '--wait-lease');
}

/**
 * Run `fn` holding the fleet lease: taken before it changes anything, given
 * back when it ends, also when it fails. `fn` gets the signal that aborts on
 * an interrupt or when the lease is lost.
 */
export async function withFleetLease<T>(
  ctx: {
    readonly config: Config;
    readonly connections: Connections;
    readonly log: Log;
    readonly signal: AbortSignal;
    readonly command: string;
    readonly release?: string;
    readonly waitMs: number | undefined;
    /** leave hosts the network does not reach out of the lease (fleetLeaseStore) */
    readonly skipUnreachable?: boolean;
  },
  fn: (lease: HeldLease, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const request = leaseRequest({
    command: ctx.command,
    ...(ctx.release ? { release: ctx.release } : {}),
    env: process.env,
    who: whoAmI(),
    pid: process.pid,
    process: thisProcess(process.pid),
  });
  const store = await fleetLeaseStore(ctx.config, ctx.connections, {
    skipUnreachable: ctx.skipUnreachable ?? false,
  });
  const deps = {
    store,
    clock: systemClock,
    log: ctx.log,
    signal: ctx.signal,
    holderGone: (holder: LeaseHolder) => holderGone(holder, request.holder),
  };
  try {
    const lease = await takeLease(deps, request, ctx.waitMs);
    try {
      return await fn(lease, AbortSignal.any([ctx.signal, lease.lost]));
    } finally {
      await lease.release();
    }
  } finally {
    store.close?.();
  }
}
