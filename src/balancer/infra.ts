import type { BalancerEntry, Config } from '../config/types.js';
import type { BalancerDeps } from './balancer.js';
import { ConfigError, UsageError } from '../errors.js';
import type { InfraOutcome } from './kind.js';
import { kindOf } from './kinds.js';
import { nameError } from './set.js';

export interface InfraResult extends InfraOutcome {
  /** the balancer's name (balancers[].name) */
  readonly name: string;
  readonly kind: BalancerEntry['kind'];
}

/**
 * `deploy infra apply`: make every balancer's health-check settings match
 * deploy.yml, one after the other, so a refusal names the one that refused
 * and the ones before it stay applied. Reads run under --dry-run too; only
 * changes are skipped.
 */
export async function infraApply(
  config: Config,
  options: { dryRun: boolean },
  deps: BalancerDeps,
): Promise<InfraResult[]> {
  const results: InfraResult[] = [];
  for (const entry of config.balancers) {
    try {
      results.push({ name: entry.name, ...(await applyOne(entry, options, deps)) });
    } catch (error) {
      throw config.balancers.length > 1 ? nameError(entry.name, error) : error;
    }
  }
  return results;
}

async function applyOne(
  entry: BalancerEntry,
  options: { dryRun: boolean },
  deps: BalancerDeps,
): Promise<Omit<InfraResult, 'name'>> {
  const kind = await kindOf(entry);
  if (kind.noInfra !== undefined) throw new UsageError(kind.noInfra);
  const desired = entry.healthCheck;
  if (!desired) {
    throw new ConfigError([
      {
        path: 'balancer',
        message:
          'deploy infra apply needs the desired settings: write interval, timeout, unhealthy_threshold and healthy_threshold',
      },
    ]);
  }
  return { kind: entry.kind, ...(await kind.infra(entry, desired, options.dryRun, deps)) };
}
