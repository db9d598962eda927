import { readFile } from 'node:fs/promises';
import { liveRangeWarnings } from '../config/alb-ranges.js';
import type { BalancerEntry, Config, HealthCheckSettings } from '../config/types.js';
import { UsageError } from '../errors.js';
import type { NamedSettings } from '../timing/index.js';
import type { Output } from './output.js';

/** One balancer's settings for `deploy check`, and where they were read. */
export interface CheckedSettings extends NamedSettings {
  readonly source: string;
  /** with --live, an ALB entry's: the type its group's protocol says (AlbBalancer.loadBalancerType) */
  readonly loadBalancerType?: 'application' | 'network';
}

/**
 * Each balancer's health-check settings: live from its API with --live (a
 * static one has none, and says so), else as deploy.yml writes them.
 */
export async function settingsOfBalancers(
  config: Config,
  live: boolean,
  out: Output,
): Promise<CheckedSettings[]> {
  const reads = config.balancers.map(async (entry) => {
    if (live && entry.kind !== 'static')
      return { name: entry.name, ...(await liveOf(entry, config, out)) };
    if (live)
      out.emit({
        level: 'warn',
        event: 'check.live-static',
        message: `--live: balancer.kind static has no API, so there is nothing live to read; checked the settings in ${config.source}`,
      });
    return { name: entry.name, ...fromFile(config, entry) };
  });
  return Promise.all(reads);
}

async function liveOf(entry: BalancerEntry, config: Config, out: Output) {
  const [{ createOne }, { systemClock }] = await Promise.all([
    import('../balancer/create.js'),
    import('../clock.js'),
  ]);
  const balancer = await createOne(entry, { clock: systemClock, log: out, ssh: config.ssh });
  try {
    const settings = await balancer.settings();
    const type = await typeOf(balancer);
    return {
      settings,
      source: `live from the ${entry.kind} balancer`,
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

/**
 * Each live ALB group's values that deploy.yml could not hold
 * (config/alb-ranges.ts), by the type its protocol says; and a
 * `balancer.type` that is not that type, which holds deploy.yml to the
 * wrong ranges.
 */
export function rangeWarnings(config: Config, settings: readonly CheckedSettings[]): string[] {
  return config.balancers.flatMap((entry) => {
    const checked = settings.find((s) => s.name === entry.name);
    if (entry.kind !== 'alb' || !checked) return [];
    const written = entry.type ?? 'application';
    const type = checked.loadBalancerType ?? written;
    const mismatch =
      type === written
        ? []
        : [
            `${entry.name}: the target group's protocol is a${type === 'network' ? ' Network' : 'n Application'} Load Balancer's, but balancer.type is ${written}: write type: ${type} so deploy.yml is held to its ranges`,
          ];
    return [...mismatch, ...liveRangeWarnings(entry.name, checked.settings, type)];
  });
}

const compared: readonly (keyof HealthCheckSettings)[] = [
  'interval',
  'timeout',
  'unhealthyThreshold',
  'healthyThreshold',
  'slowStart',
];

/**
 * What --live warns of beside the invariants: HAProxy instances of one
 * pair (the same backend) that check differently, so one notices a drain
 * later than the other; and drain.method deregister on an HAProxy whose
 * config keeps no server-state file, so a reload puts a drained server back.
 */
export async function pairWarnings(
  config: Config,
  settings: readonly CheckedSettings[],
): Promise<string[]> {
  const haproxies = config.balancers.filter((b) => b.kind === 'haproxy');
  const warnings: string[] = [];
  const byName = new Map(settings.map((s) => [s.name, s.settings]));
  const [first, ...rest] = haproxies;
  for (const other of first ? rest : []) {
    const a = byName.get(first?.name ?? '');
    const b = byName.get(other.name);
    if (!a || !b || other.backend !== first?.backend) continue;
    const differ = compared.filter((k) => a[k] !== b[k]);
    if (differ.length > 0)
      warnings.push(
        `${first.name} and ${other.name} (backend ${other.backend}) check differently (${differ.join(', ')}): the slower one sets the bounds; give both the same settings so a drain is seen at once`,
      );
  }
  if (config.drain.method === 'deregister')
    // a balancer on its own host: its file is there (the adapter reads it over SSH for the settings)
    for (const h of haproxies.filter((b) => b.ssh === undefined)) {
      const why = await serverStateMissing(h.config);
      if (why)
        warnings.push(
          `${h.name}: drain.method deregister ${why}: a reload during a deploy puts a drained server back in rotation; set server-state-file and load-server-state-from-file (docs/balancers.md)`,
        );
    }
  return warnings;
}

async function serverStateMissing(file: string | undefined): Promise<string | undefined> {
  if (file === undefined)
    return 'and no balancer config file to tell whether a server-state file is kept';
  const text = await readFile(file, 'utf8').catch(() => '');
  const lines = text.split('\n').map((l) => l.replace(/#.*/, '').trim());
  const has = (word: string) => lines.some((l) => l.split(/\s+/)[0] === word);
  if (has('server-state-file') && has('load-server-state-from-file')) return undefined;
  return `without a server-state file in ${file}`;
}
