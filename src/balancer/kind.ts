import type { BalancerConfig, HealthCheckSettings } from '../config/types.js';
import type { Balancer, BalancerDeps } from './balancer.js';
import type { SettingChange } from './infra-diff.js';

/** What `deploy infra apply` did (or would do) at one balancer. */
export interface InfraOutcome {
  readonly changes: readonly SettingChange[];
  /** true when changes were made at the balancer */
  readonly applied: boolean;
  /** haproxy: the lines to write into its config, since it cannot change them at runtime */
  readonly snippet?: string;
}

/**
 * Everything the rest of the program asks of a balancer kind, given by its
 * folder (`src/balancer/<kind>/kind.ts`) and listed in `kinds.ts`.
 */
export interface BalancerKind<E extends BalancerConfig = BalancerConfig> {
  /** its adapter, for one entry of deploy.yml */
  create(entry: E, deps: BalancerDeps): Promise<Balancer>;
  /**
   * `deploy infra apply` toward `desired` (deploy.yml's settings); a kind with
   * nothing to apply throws the UsageError that says why
   */
  infra(
    entry: E,
    desired: HealthCheckSettings,
    dryRun: boolean,
    deps: BalancerDeps,
  ): Promise<InfraOutcome>;
  /** a kind that answers its own `infra` with a refusal says it before anything else is asked */
  readonly noInfra?: string;
  /** a kind with no API to read its settings from says why `deploy check --live` reads deploy.yml */
  readonly noLive?: string;
}
