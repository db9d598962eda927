import { UsageError } from '../../errors.js';
import { describeLease, type LeaseRequest } from '../../protocol/lease.js';
import { leaseRequest } from '../../rollout/lease/holder.js';
import type { LeaseStore, LeaseView } from '../../rollout/lease/store.js';
import { whoAmI } from '../connections.js';
import { fleetLeaseStore } from '../with-fleet-lease.js';
import { renderLease, summarizeLease } from '../lease-report.js';
import type { Output } from '../output.js';
import { open, type FleetFlags } from '../open-fleet.js';

/**
 * `deploy lease break --yes`: the fleet lease removed whoever holds it, in
 * whichever store deploy.yml names. The holder, if it still runs, finds it
 * lost at its next renewal and stops at its next safe point. Without --yes it
 * says who holds it and changes nothing.
 */
export async function runLeaseBreak(flags: FleetFlags & { yes?: boolean }): Promise<void> {
  const { out, config, connections } = await open(flags);
  try {
    const store = await fleetLeaseStore(config, connections);
    try {
      const request = leaseRequest({
        command: 'lease break',
        env: process.env,
        who: whoAmI(),
        pid: process.pid,
      });
      await breakLease(store, out, request, flags.yes ?? false);
    } finally {
      store.close?.();
    }
  } finally {
    await connections.close();
  }
}

/**
 * The break itself, on any store: refused (exit 2, the holder shown) without
 * `yes`; else one `lease.broken` warning per holder, which the store also
 * keeps (the hosts' audit.jsonl, etcd's `breaks/` keys).
 */
export async function breakLease(
  store: LeaseStore,
  out: Output,
  request: LeaseRequest,
  yes: boolean,
): Promise<void> {
  if (!yes) {
    for (const line of renderLease(summarizeLease(await store.read()))) out.text(line);
    throw new UsageError(
      'lease break removes the fleet lease whoever holds it (a deploy still running stops at its next safe point): run it again with --yes',
    );
  }
  const views = await store.break(request);
  const broken = held(views);
  const by = `${request.holder.user}@${request.holder.host}`;
  for (const b of broken)
    out.emit({
      level: 'warn',
      event: 'lease.broken',
      message: `broke the fleet lease of ${describeLease(b.lease)} (on ${b.where}; by ${by})`,
      fields: { where: b.where, holder: b.lease, by: request.holder },
    });
  // a value handoff cannot read (etcd: removed by the break; the hosts store refuses it)
  const unreadable = views.flatMap((v) =>
    v.problem ? [{ where: v.where, problem: v.problem }] : [],
  );
  for (const u of unreadable)
    out.emit({
      level: 'warn',
      event: 'lease.broken',
      message: `removed what was not a fleet lease (on ${u.where}; by ${by})`,
      fields: { ...u, by: request.holder },
    });
  if (broken.length + unreadable.length === 0) out.text('fleet lease: free, nothing to break');
  out.result(true, { broken, ...(unreadable.length > 0 && { unreadable }) });
}

/** one entry per holder, with every place its pieces were */
function held(views: readonly LeaseView[]) {
  const byId = new Map<string, { where: string; lease: NonNullable<LeaseView['lease']> }>();
  for (const v of views) {
    if (!v.lease) continue;
    const seen = byId.get(v.lease.id);
    byId.set(
      v.lease.id,
      seen ? { ...seen, where: `${seen.where}, ${v.where}` } : { where: v.where, lease: v.lease },
    );
  }
  return [...byId.values()];
}
