import type { Clock } from '../clock.js';
import type { BalancerConfig, Config, HealthCheckSettings } from '../config/types.js';
import type { EvidenceSource } from '../evidence/kit/source.js';
import type { MetricsReader } from '../evidence/kit/metrics-receipt.js';
import type { KindInvariants, NamedSettings } from '../timing/index.js';
import type { Balancer, BalancerDeps } from './balancer.js';
import type { SettingChange } from './infra-diff.js';

/** What `deploy infra apply` did (or would do) at one balancer. */
export interface InfraOutcome {
  readonly changes: readonly SettingChange[];
  /** true when changes were made at the balancer */
  readonly applied: boolean;
  /**
   * for a kind that cannot change its settings at runtime: the lines to write
   * into its config, and what to call them (`<title>:` above the lines)
   */
  readonly snippet?: { readonly title: string; readonly text: string };
}

/** One balancer's settings for `deploy check`, and where they were read. */
export interface CheckedSettings extends NamedSettings {
  readonly source: string;
  /** --live: the balancer's config file as it read it, where it is (over SSH for one on its own host) */
  readonly configText?: string;
  /** --live: the adapter the settings were read through, open while the kind's liveWarnings ask it more */
  readonly balancer?: Balancer;
}

/** A target that names its port, as the kind reads it: `id` is what stands before the port. */
export interface TargetPort {
  readonly id: string;
  readonly port: number;
}

/** One entry of `balancers:` of a kind: its settings, its name, its targets. */
export type KindEntry<E extends BalancerConfig> = E & {
  readonly name: string;
  readonly targets: Readonly<Record<string, string>>;
};

/** What a kind's receipt source is built with. */
export interface ReceiptContext {
  readonly config: Config;
  readonly clock: Clock;
  /** the run's balancers, through which one on its own host is read (over SSH); absent: none opened */
  readonly balancer?: () => Promise<Balancer>;
  /** several balancers count: each source's label names its balancer */
  readonly named: boolean;
}

/** What a kind's metrics receipt is read with: the run's balancers, which it reads through. */
export interface MetricsContext extends ReceiptContext {
  readonly balancer: () => Promise<Balancer>;
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
  /**
   * what only this kind's configuration says about a drain, as invariants of
   * one balancer's settings: held beside the shared ones by `deploy check`,
   * a dry run and preflight (pure, in the kind's `invariants.ts`)
   */
  readonly invariants?: KindInvariants;
  /** a kind that answers its own `infra` with a refusal says it before anything else is asked */
  readonly noInfra?: string;
  /** a kind with no API to read its settings from says why `deploy check --live` reads deploy.yml */
  readonly noLive?: string;
  /**
   * the port a target names, if it names one (`ip:port`): preflight
   * asks the host whether anything listens there
   */
  readonly targetPort?: (target: string) => TargetPort | undefined;
  /**
   * what `deploy check --live` warns of for this kind's entries of `config`
   * beside the invariants; asked once per kind, with every balancer's settings
   */
  liveWarnings?(config: Config, checked: readonly CheckedSettings[]): Promise<string[]>;
  /**
   * the balancer's own count of each host's requests and failures, for the
   * rollout's receipt (evidence/create-source.ts sums one per balancer, and
   * has none unless every balancer's kind gives one); undefined when this
   * entry cannot be counted from here
   */
  receiptSource?(entry: KindEntry<E>, ctx: ReceiptContext): EvidenceSource | undefined;
  /**
   * a kind whose provider keeps per-minute figures: the receipt read from
   * them afterwards, over a window, for its balancers among the run's (each
   * by its deploy.yml name; those of other kinds it names as not counted).
   * The rollout's receipt when the balancers cannot count themselves, and
   * `deploy receipt`'s; asked of the first such kind among deploy.yml's
   */
  metricsReceipt?(ctx: MetricsContext): MetricsReader;
}
