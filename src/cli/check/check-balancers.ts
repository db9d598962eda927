import type { BalancerEntry, Config } from '../../config/types.js';
import type { Balancer } from '../../balancer/balancer.js';
import type { CheckedSettings } from '../../balancer/kind.js';
import { UsageError } from '../../errors.js';
import type { Output } from '../output.js';

/** What `deploy check` reads of the balancers; with --live, through one set of them, open until `close`. */
export interface CheckedBalancers {
  readonly each: readonly CheckedSettings[];
  /** --live: every balancer, opened once (over SSH for one on its own host) and reused for the canary's estimate */
  readonly live?: Balancer;
}

/**
 * Each balancer's health-check settings and its kind's invariants: live from
 * its API with --live (a kind with none says so), else as deploy.yml
 * writes them.
 */
export async function settingsOfBalancers(
  config: Config,
  live: boolean,
  out: Output,
): Promise<CheckedBalancers> {
  const { kindOf } = await import('../../balancer/kinds.js');
  const set = live ? await openLive(config, out) : undefined;
  const reads = config.balancers.map(async (entry): Promise<CheckedSettings> => {
    const { noLive, invariants } = await kindOf(entry);
    const own = { name: entry.name, ...(invariants && { invariants }) };
    const balancer = set?.members.find((m) => m.name === entry.name)?.balancer;
    if (balancer && noLive === undefined) return { ...own, ...(await liveOf(entry, balancer)) };
    if (live)
      out.emit({
        level: 'warn',
        event: 'check.live-unread',
        message: `--live: ${noLive}; checked the settings in ${config.source}`,
      });
    return { ...own, ...fromFile(config, entry) };
  });
  try {
    return { each: await Promise.all(reads), ...(set && { live: set }) };
  } catch (error) {
    await set?.close().catch(() => undefined);
    throw error;
  }
}

async function openLive(config: Config, out: Output) {
  const [{ createBalancer }, { systemClock }] = await Promise.all([
    import('../../balancer/create.js'),
    import('../../clock.js'),
  ]);
  return createBalancer(config, { clock: systemClock, log: out });
}

async function liveOf(entry: BalancerEntry, balancer: Balancer) {
  const settings = await balancer.settings();
  const configText = await balancer.configText?.();
  return {
    settings,
    source: `live from the ${entry.kind} balancer`,
    balancer,
    ...(configText !== undefined && { configText }),
  };
}

function fromFile(config: Config, entry: BalancerEntry) {
  if (!entry.healthCheck) {
    throw new UsageError(
      `balancer.kind ${entry.kind} has no health-check settings in ${config.source}: run 'deploy check --live', or add interval, timeout, unhealthy_threshold and healthy_threshold under balancer`,
    );
  }
  return { settings: entry.healthCheck, source: `from ${config.source}` };
}

/** What --live warns of beside the invariants, as each kind in deploy.yml says (once per kind). */
export async function kindWarnings(
  config: Config,
  settings: readonly CheckedSettings[],
): Promise<string[]> {
  const { kindNamed } = await import('../../balancer/kinds.js');
  const kinds = [...new Set(config.balancers.map((b) => b.kind))];
  const each = await Promise.all(
    kinds.map(async (name) => (await kindNamed(name)).liveWarnings?.(config, settings) ?? []),
  );
  return each.flat();
}
