import type { BalancerEntry, Config } from '../../config/types.js';
import type { CheckedSettings } from '../../balancer/kind.js';
import { UsageError } from '../../errors.js';
import type { Output } from '../output.js';

/**
 * Each balancer's health-check settings: live from its API with --live (a
 * static one has none, and says so), else as deploy.yml writes them.
 */
export async function settingsOfBalancers(
  config: Config,
  live: boolean,
  out: Output,
): Promise<CheckedSettings[]> {
  const { kindOf } = await import('../../balancer/kinds.js');
  const reads = config.balancers.map(async (entry) => {
    const { noLive } = await kindOf(entry);
    if (live && noLive === undefined)
      return { name: entry.name, ...(await liveOf(entry, config, out)) };
    if (live)
      out.emit({
        level: 'warn',
        event: 'check.live-static',
        message: `--live: ${noLive}; checked the settings in ${config.source}`,
      });
    return { name: entry.name, ...fromFile(config, entry) };
  });
  return Promise.all(reads);
}

async function liveOf(entry: BalancerEntry, config: Config, out: Output) {
  const [{ createOne }, { systemClock }] = await Promise.all([
    import('../../balancer/create.js'),
    import('../../clock.js'),
  ]);
  const balancer = await createOne(entry, { clock: systemClock, log: out, ssh: config.ssh });
  try {
    const settings = await balancer.settings();
    const configText = await balancer.configText?.();
    const type = await typeOf(balancer);
    return {
      settings,
      source: `live from the ${entry.kind} balancer`,
      ...(configText !== undefined && { configText }),
      ...(type !== undefined && { loadBalancerType: type }),
    };
  } finally {
    await balancer.close();
  }
}

function fromFile(config: Config, entry: BalancerEntry) {
  if (!entry.healthCheck) {
    throw new UsageError(
      `balancer.kind ${entry.kind} has no health-check settings in ${config.source}: run 'deploy check --live', or add interval, timeout, unhealthy_threshold and healthy_threshold under balancer`,
    );
  }
  return { settings: entry.healthCheck, source: `from ${config.source}` };
}

/** an ALB's type as its group's protocol says; undefined for the other kinds */
async function typeOf(balancer: object): Promise<'application' | 'network' | undefined> {
  if (!('loadBalancerType' in balancer) || typeof balancer.loadBalancerType !== 'function')
    return undefined;
  return (await (balancer.loadBalancerType as () => Promise<unknown>).call(balancer)) as
    'application' | 'network' | undefined;
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
