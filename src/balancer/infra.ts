import type { BalancerEntry, Config, HealthCheckSettings } from '../config/types.js';
import type { BalancerDeps } from './balancer.js';
import { ConfigError, OperationError, UsageError } from '../errors.js';
import { diffSettings, formatValue, type SettingChange } from './infra-diff.js';
import { nameError } from './set.js';

export interface InfraResult {
  /** the balancer's name (balancers[].name) */
  readonly name: string;
  readonly kind: BalancerEntry['kind'];
  readonly changes: readonly SettingChange[];
  /** true when changes were made at the balancer */
  readonly applied: boolean;
  /** haproxy: the lines to write into its config, since it cannot change them at runtime */
  readonly snippet?: string;
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
  balancer: BalancerEntry,
  options: { dryRun: boolean },
  deps: BalancerDeps,
): Promise<Omit<InfraResult, 'name'>> {
  const desired = balancer.healthCheck;
  if (balancer.kind === 'static') {
    throw new UsageError('balancer.kind static has no API: there is nothing to apply');
  }
  if (balancer.kind === 'nginx') {
    throw new UsageError(
      "balancer.kind nginx has no health checks to apply: its numbers are worker_shutdown_timeout and the upstream's keepalive_timeout in nginx's own config (docs/balancers.md)",
    );
  }
  if (!desired) {
    throw new ConfigError([
      {
        path: 'balancer',
        message:
          'deploy infra apply needs the desired settings: write interval, timeout, unhealthy_threshold and healthy_threshold',
      },
    ]);
  }
  if (balancer.kind === 'alb') {
    const [{ createAlbBalancer }, { applyAlbInfra }] = await Promise.all([
      import('./alb.js'),
      import('./alb-infra.js'),
    ]);
    const alb = await createAlbBalancer(balancer, deps);
    try {
      return { kind: 'alb', ...(await applyAlbInfra(alb, desired, options.dryRun)) };
    } finally {
      await alb.close();
    }
  }
  const { HaproxyBalancer } = await import('./haproxy/adapter.js');
  // compare with what runs: the file (or deploy.yml itself) would only echo `desired`
  const haproxy = new HaproxyBalancer(balancer, {}, deps);
  const current = await haproxy.settings().finally(() => haproxy.close());
  // deregistration delay and idle timeout are ALB notions with no haproxy line
  const { deregistrationDelay: _d, idleTimeout: _i, ...comparable } = desired;
  const changes = diffSettings(current, comparable, () => 'manual');
  if (changes.length > 0 && !options.dryRun) {
    throw new OperationError(
      `haproxy cannot change check settings at runtime: put '${haproxySnippet(desired).replace(/\n/g, '; ')}' in backend ${balancer.backend}${balancer.config ? ` of ${balancer.config}` : ''} and reload haproxy`,
    );
  }
  return { kind: 'haproxy', changes, applied: false, snippet: haproxySnippet(desired) };
}

/** The backend lines that give haproxy the settings of deploy.yml. */
export function haproxySnippet(s: HealthCheckSettings): string {
  const t = (ms: number): string => formatValue('interval', ms);
  const slow = s.slowStart ? ` slowstart ${t(s.slowStart)}` : '';
  return [
    `default-server inter ${t(s.interval)} fall ${s.unhealthyThreshold} rise ${s.healthyThreshold}${slow}`,
    `timeout check ${t(s.timeout)}`,
  ].join('\n');
}
