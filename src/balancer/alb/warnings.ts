import { liveRangeWarnings } from './config/ranges.js';
import type { Config } from '../../config/types.js';
import type { CheckedSettings } from '../kind.js';
import { AlbBalancer } from './adapter.js';

type LoadBalancerType = 'application' | 'network';

/** the type each live group's protocol says, by balancer name (AlbBalancer.loadBalancerType) */
export async function liveTypes(
  checked: readonly CheckedSettings[],
): Promise<ReadonlyMap<string, LoadBalancerType>> {
  const read = await Promise.all(
    checked.map(async (c) =>
      c.balancer instanceof AlbBalancer
        ? ([c.name, await c.balancer.loadBalancerType()] as const)
        : undefined,
    ),
  );
  return new Map(
    read.flatMap((r) => (r?.[1] === undefined ? [] : [[r[0], r[1]] as [string, LoadBalancerType]])),
  );
}

/**
 * Each live ALB group's values that deploy.yml could not hold
 * (balancer/alb/config/ranges.ts), by the type its protocol says; and a
 * `balancer.type` that is not that type, which holds deploy.yml to the
 * wrong ranges.
 */
export function rangeWarnings(
  config: Config,
  settings: readonly CheckedSettings[],
  types: ReadonlyMap<string, LoadBalancerType> = new Map(),
): string[] {
  return config.balancers.flatMap((entry) => {
    const checked = settings.find((s) => s.name === entry.name);
    if (entry.kind !== 'alb' || !checked) return [];
    const written = entry.type ?? 'application';
    const type = types.get(entry.name) ?? written;
    const mismatch =
      type === written
        ? []
        : [
            `${entry.name}: the target group's protocol is a${type === 'network' ? ' Network' : 'n Application'} Load Balancer's, but balancer.type is ${written}: write type: ${type} so deploy.yml is held to its ranges`,
          ];
    return [...mismatch, ...liveRangeWarnings(entry.name, checked.settings, type)];
  });
}
