import { FreshRead } from '../../../fresh-read.js';
import type { EvidenceSource } from '../../../evidence/kit/source.js';
import type { Balancer } from '../../balancer.js';
import type { KindEntry, ReceiptContext } from '../../kind.js';
import { membersOf } from '../../set.js';
import { HaproxyBalancer } from '../adapter.js';
import type { HaproxyBalancerConfig } from '../config/entry.js';
import { readHaproxyCounters } from './read.js';
import { HaproxyCountSource } from './source.js';

/**
 * One HAProxy's share of the receipt: its backend's per-server counters. An
 * HAProxy on its own host (`ssh:`) is read through the run's balancer, over
 * the SSH connection it holds: without it there is no receipt, not half of one.
 */
export function haproxyReceiptSource(
  entry: KindEntry<HaproxyBalancerConfig>,
  ctx: ReceiptContext,
): EvidenceSource | undefined {
  const { balancer } = ctx;
  if (entry.ssh !== undefined && !balancer) return undefined;
  const where = { socket: entry.socket, backend: entry.backend };
  const read =
    entry.ssh && balancer
      ? async (servers: ReadonlySet<string>) =>
          readHaproxyCounters({ ...where, address: await runtimeOf(balancer, entry.name) }, servers)
      : (servers: ReadonlySet<string>) => readHaproxyCounters(where, servers);
  // a wave's hosts open and close their windows about at once: one read serves those that
  // come together, and parses the rows of their servers only
  const counters = new FreshRead(read);
  return new HaproxyCountSource(
    (servers) => counters.get(servers),
    new Map(ctx.config.hosts.map((h) => [h.name, entry.targets[h.name] ?? h.target])),
    ctx.clock,
    entry.backend,
    ctx.named ? entry.name : undefined,
  );
}

/** the runtime API of the run's HAProxy named `name`, as it reaches it (over its SSH connection) */
async function runtimeOf(balancer: () => Promise<Balancer>, name: string) {
  const member = membersOf(await balancer()).find((m) => m.name === name);
  if (member?.balancer instanceof HaproxyBalancer) return member.balancer.runtime;
  throw new Error(`balancer ${name} is not an haproxy of this run`);
}
