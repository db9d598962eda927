import path from 'node:path';
import type { Balancer } from '../balancer/balancer.js';
import { HaproxyBalancer } from '../balancer/haproxy/adapter.js';
import { membersOf } from '../balancer/set.js';
import type { Clock } from '../clock.js';
import { cloudWatchCounts, metricsGroups, type CloudWatchCounts } from './cloudwatch-receipt.js';
import type { Config } from '../config/types.js';
import { FreshRead } from '../fresh-read.js';
import { CommandCountSource } from './command-source.js';
import { readHaproxyCounters } from './haproxy-read.js';
import { HaproxyCountSource } from './haproxy-source.js';
import { ServiceCountSource, type ReadHost } from './service-source.js';
import type { EvidenceSource } from './source.js';
import { SumCountSource } from './sum-source.js';

/**
 * The receipt's source: HAProxy's counters, the balancer's own word on what
 * reached nowhere. Every balancer in front of the fleet must be an HAProxy:
 * of a pair, each instance sees only its share, so the receipt is their sum;
 * with an ALB among them the receipt would miss its traffic, and there is
 * none (any source still judges a canary). An HAProxy on its own host
 * (`ssh:`) is read through the run's balancer, over the SSH connection it
 * holds: without `balancer` there is no receipt, not half of one.
 */
export function receiptSource(
  config: Config,
  clock: Clock,
  balancer?: () => Promise<Balancer>,
): EvidenceSource | undefined {
  const each = config.balancers.flatMap((b) => (b.kind === 'haproxy' ? [b] : []));
  if (each.length === 0 || each.length < config.balancers.length) return undefined;
  if (!balancer && each.some((b) => b.ssh !== undefined)) return undefined;
  const sources = each.map((b) => {
    const where = { socket: b.socket, backend: b.backend };
    const read =
      b.ssh && balancer
        ? async (servers: ReadonlySet<string>) =>
            readHaproxyCounters({ ...where, address: await runtimeOf(balancer, b.name) }, servers)
        : (servers: ReadonlySet<string>) => readHaproxyCounters(where, servers);
    // a wave's hosts open and close their windows about at once: one read serves those that
    // come together, and parses the rows of their servers only
    const counters = new FreshRead(read);
    return new HaproxyCountSource(
      (servers) => counters.get(servers),
      new Map(config.hosts.map((h) => [h.name, b.targets[h.name] ?? h.target])),
      clock,
      b.backend,
      each.length > 1 ? b.name : undefined,
    );
  });
  return sources.length === 1 ? sources[0] : new SumCountSource(sources);
}

/** the runtime API of the run's HAProxy named `name`, as it reaches it (over its SSH connection) */
async function runtimeOf(balancer: () => Promise<Balancer>, name: string) {
  const member = membersOf(await balancer()).find((m) => m.name === name);
  if (member?.balancer instanceof HaproxyBalancer) return member.balancer.runtime;
  throw new Error(`balancer ${name} is not an haproxy of this run`);
}

export function judgementSource(
  config: Config,
  clock: Clock,
  readHost?: ReadHost,
  balancer?: () => Promise<Balancer>,
): { source: EvidenceSource } | { missing: string } {
  const j = config.rollout.judgement;
  const source = j?.source ?? 'balancer';
  if (source === 'balancer') {
    const s = receiptSource(config, clock, balancer);
    return s ? { source: s } : { missing: 'source balancer needs every balancer to be an haproxy' };
  }
  if (source === 'command' && j?.command !== undefined)
    return {
      source: new CommandCountSource({
        file: j.command,
        cwd: path.dirname(path.resolve(config.source)),
        timeoutMs: j.commandTimeout,
        service: config.service,
        targets: new Map(config.hosts.map((h) => [h.name, h.target])),
        clock,
      }),
    };
  if (source === 'service' && readHost !== undefined)
    return { source: new ServiceCountSource(readHost, () => clock.now()) };
  return { missing: `source ${source} cannot be read here` };
}

/** What a rollout is given to count with (built in cli/, faked in tests). */
export interface EvidenceDeps {
  readonly receipt?: EvidenceSource;
  /** with no HAProxy receipt: CloudWatch's figures for the ALB target groups over a window */
  readonly cloudWatch?: CloudWatchCounts;
  judgement(): { source: EvidenceSource } | { missing: string };
}

/**
 * `readHost`: each host's agent's `service-counts`, for source service;
 * `balancer`: the run's, whose ALB target groups CloudWatch counts
 */
export function evidenceDeps(
  config: Config,
  clock: Clock,
  readHost?: ReadHost,
  balancer?: () => Promise<Balancer>,
): EvidenceDeps {
  const receipt = receiptSource(config, clock, balancer);
  const albs = config.balancers.some((b) => b.kind === 'alb');
  const names = config.balancers.map((b) => b.name);
  return {
    ...(receipt && { receipt }),
    ...(!receipt &&
      albs &&
      balancer && {
        cloudWatch: cloudWatchCounts(async () => metricsGroups(await balancer(), names), clock),
      }),
    judgement: () => judgementSource(config, clock, readHost, balancer),
  };
}
