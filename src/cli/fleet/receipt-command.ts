import { systemClock } from '../../clock.js';
import { HandoffError, UsageError } from '../../errors.js';
import { unreadExit } from '../../evidence/cloudwatch-receipt.js';
import { evidenceDeps } from '../../evidence/create-source.js';
import { receiptLine } from '../../evidence/receipt.js';
import { parseSince } from './audit-timeline.js';
import { open, type FleetFlags } from '../open-fleet.js';

/**
 * `deploy receipt --from WHEN [--to WHEN]`: CloudWatch's figures for deploy.yml's
 * ALB target groups over a window — a rollout's final receipt, once CloudWatch
 * has published its last minutes (the rollout's own is provisional). HAProxy
 * keeps no history: its receipt is the one each rollout prints.
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
    if (!evidence.cloudWatch)
      throw new UsageError(
        "deploy receipt reads CloudWatch, and deploy.yml names no ALB target group (or an HAProxy too): HAProxy's counters keep no history, its receipt is the one each rollout prints",
      );
    const receipt = await evidence.cloudWatch.receipt(from, to);
    if (!receipt) throw new UsageError('deploy.yml names no ALB target group');
    // exit as what made it unread: a region deploy.yml lacks is 2, access denied 3
    if (receipt.total.unread !== undefined)
      throw new HandoffError(receiptLine(receipt), unreadExit(receipt));
    out.text(receiptLine(receipt));
    out.result(true, { receipt });
  } finally {
    await connections.close();
  }
}
