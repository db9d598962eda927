import path from 'node:path';
import type { Balancer } from '../balancer/balancer.js';
import type { BalancerKind } from '../balancer/kind.js';
import { kindOf } from '../balancer/kinds.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/types.js';
import { kindConfigs } from '../config/balancer-kinds.js';
import { CommandCountSource } from './command-source.js';
import { ServiceCountSource, type ReadHost } from './service-source.js';
import type { EvidenceSource } from './kit/source.js';
import type { MetricsReader } from './kit/metrics-receipt.js';
import { SumCountSource } from './sum-source.js';

/**
 * The receipt's source: the balancers' own word on what reached nowhere,
 * each asked of its kind (`receiptSource`). Every balancer in front of the
 * fleet must count: of a pair, each instance sees only its share, so the
 * receipt is their sum; with one that cannot count among them the receipt
 * would miss its traffic, and there is none (any source still judges a
 * canary). Each call builds the sources anew.
 */
function receiptMaker(
  config: Config,
  kinds: readonly BalancerKind[],
  clock: Clock,
  balancer?: () => Promise<Balancer>,
): () => EvidenceSource | undefined {
  const ctx = { ...contextOf(config, clock), ...(balancer && { balancer }) };
  return () => {
    if (kinds.length === 0 || kinds.some((k) => !k.receiptSource)) return undefined;
    const sources = config.balancers.map((b, i) => kinds[i]?.receiptSource?.(b, ctx));
    const each = sources.flatMap((s) => (s ? [s] : []));
    if (each.length < config.balancers.length) return undefined;
    return each.length === 1 ? each[0] : new SumCountSource(each);
  };
}

/** The receipt's source (receiptMaker), once. */
export async function receiptSource(
  config: Config,
  clock: Clock,
  balancer?: () => Promise<Balancer>,
): Promise<EvidenceSource | undefined> {
  return receiptMaker(config, await kindsOf(config), clock, balancer)();
}

function contextOf(config: Config, clock: Clock) {
  return { config, clock, named: config.balancers.length > 1 };
}

/** each balancer's kind, in the order of config.balancers */
function kindsOf(config: Config): Promise<BalancerKind[]> {
  return Promise.all(config.balancers.map((b) => kindOf(b)));
}

/** the kinds that count each host's requests, by name, for the line that asks for one */
function countingKinds(): string {
  return kindConfigs.flatMap(([name, k]) => (k.countsPerHost ? [name] : [])).join(' or ');
}

function judgementSource(
  config: Config,
  clock: Clock,
  receipt: () => EvidenceSource | undefined,
  readHost?: ReadHost,
): { source: EvidenceSource } | { missing: string } {
  const j = config.rollout.judgement;
  const source = j?.source ?? 'balancer';
  if (source === 'balancer') {
    const s = receipt();
    return s
      ? { source: s }
      : { missing: `source balancer needs every balancer to be an ${countingKinds()}` };
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

/** The first kind among deploy.yml's whose provider keeps per-minute figures reads them, through the run's balancers. */
function metricsReader(
  config: Config,
  kinds: readonly BalancerKind[],
  clock: Clock,
  balancer: () => Promise<Balancer>,
): MetricsReader | undefined {
  for (const kind of kinds) {
    const reader = kind.metricsReceipt?.({ ...contextOf(config, clock), balancer });
    if (reader) return reader;
  }
  return undefined;
}

/** What a rollout is given to count with (built in cli/, faked in tests). */
export interface EvidenceDeps {
  readonly receipt?: EvidenceSource;
  /** with no receipt of the balancers' own: their provider's per-minute figures over a window (BalancerKind.metricsReceipt) */
  readonly metrics?: MetricsReader;
  judgement(): { source: EvidenceSource } | { missing: string };
}

/**
 * `readHost`: each host's agent's `service-counts`, for source service;
 * `balancer`: the run's, through which the balancers count (and the metrics receipt reads)
 */
export async function evidenceDeps(
  config: Config,
  clock: Clock,
  readHost?: ReadHost,
  balancer?: () => Promise<Balancer>,
): Promise<EvidenceDeps> {
  const kinds = await kindsOf(config);
  const make = receiptMaker(config, kinds, clock, balancer);
  const receipt = make();
  const metrics = !receipt && balancer ? metricsReader(config, kinds, clock, balancer) : undefined;
  return {
    ...(receipt && { receipt }),
    ...(metrics && { metrics }),
    judgement: () => judgementSource(config, clock, make, readHost),
  };
}
