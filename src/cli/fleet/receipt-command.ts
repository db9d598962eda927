import { kindNamed } from '../../balancer/kinds.js';
import { systemClock } from '../../clock.js';
import { kindConfigs } from '../../config/balancer-kinds.js';
import { HandoffError, UsageError } from '../../errors.js';
import { evidenceDeps } from '../../evidence/create-source.js';
import { unreadExit } from '../../evidence/kit/metrics-receipt.js';
import { receiptLine } from '../../evidence/receipt.js';
import { parseSince } from './audit-timeline.js';
import { open, type FleetFlags } from '../open-fleet.js';

/**
 * `deploy receipt --from WHEN [--to WHEN]`: the per-minute figures a balancer's
 * provider keeps, for deploy.yml's balancers over a window, as their kind reads
 * them (BalancerKind.metricsReceipt) — a rollout's final receipt, once the
 * provider has published its last minutes (the rollout's own is provisional).
 * A balancer's own counters keep no history: its receipt is the one each
 * rollout prints.
 */
export async function runReceipt(flags: FleetFlags & { from: string; to?: string }): Promise<void> {
  const { out, config, connections } = await open(flags, { checkAgent: false, ssh: false });
  try {
    const now = Date.now();
    const from = Date.parse(parseSince(flags.from, now, '--from'));
    const to = flags.to === undefined ? now : Date.parse(parseSince(flags.to, now, '--to'));
    if (to <= from)
      throw new UsageError(`--to must be after --from (${new Date(from).toISOString()})`);
    const evidence = await evidenceDeps(config, systemClock, undefined, () =>
      connections.balancer(),
    );
    if (!evidence.metrics)
      throw new UsageError(
        `deploy receipt reads the per-minute figures a balancer's provider keeps (kind ${await metricsKinds()}), and deploy.yml names no such balancer: a balancer's own counters keep no history, its receipt is the one each rollout prints`,
      );
    const receipt = await evidence.metrics.receipt(from, to);
    if (!receipt) throw new UsageError('deploy.yml names no balancer with per-minute figures');
    // exit as what made it unread: a region deploy.yml lacks is 2, access denied 3
    if (receipt.total.unread !== undefined)
      throw new HandoffError(receiptLine(receipt), unreadExit(receipt));
    out.text(receiptLine(receipt));
    out.result(true, { receipt });
  } finally {
    await connections.close();
  }
}

/** the kinds whose provider keeps per-minute figures (`metricsReceipt`), by name */
async function metricsKinds(): Promise<string> {
  const kinds = await Promise.all(kindConfigs.map(([name]) => kindNamed(name)));
  return kindConfigs.flatMap(([name], i) => (kinds[i]?.metricsReceipt ? [name] : [])).join(' or ');
}
