import type { HealthCheckSettings } from '../../config/types.js';
import type { HaproxyBalancerConfig } from './config/entry.js';
import { OperationError } from '../../errors.js';
import type { BalancerDeps } from '../balancer.js';
import { diffSettings, formatValue } from '../infra-diff.js';
import type { InfraOutcome } from '../kind.js';
import { HaproxyBalancer } from './adapter.js';

/**
 * HAProxy cannot change its check settings at runtime: `deploy infra apply`
 * compares what runs with `desired` and gives the lines to write.
 */
export async function haproxyInfra(
  entry: HaproxyBalancerConfig,
  desired: HealthCheckSettings,
  dryRun: boolean,
  deps: BalancerDeps,
): Promise<InfraOutcome> {
  // compare with what runs: the file (or deploy.yml itself) would only echo `desired`
  const haproxy = new HaproxyBalancer(entry, {}, deps);
  const current = await haproxy.settings().finally(() => haproxy.close());
  // deregistration delay and idle timeout have no haproxy line
  const { deregistrationDelay: _d, idleTimeout: _i, ...comparable } = desired;
  const changes = diffSettings(current, comparable, () => 'manual');
  if (changes.length > 0 && !dryRun) {
    throw new OperationError(
      `haproxy cannot change check settings at runtime: put '${haproxySnippet(desired).replace(/\n/g, '; ')}' in backend ${entry.backend}${entry.config ? ` of ${entry.config}` : ''} and reload haproxy`,
    );
  }
  return {
    changes,
    applied: false,
    snippet: { title: 'haproxy backend lines', text: haproxySnippet(desired) },
  };
}

/** The backend lines that give haproxy the settings of deploy.yml. */
function haproxySnippet(s: HealthCheckSettings): string {
  const t = (ms: number): string => formatValue('interval', ms);
  const slow = s.slowStart ? ` slowstart ${t(s.slowStart)}` : '';
  return [
    `default-server inter ${t(s.interval)} fall ${s.unhealthyThreshold} rise ${s.healthyThreshold}${slow}`,
    `timeout check ${t(s.timeout)}`,
  ].join('\n');
}
