import type { SkippedHost } from './preflight-reach.js';
import type { Balancer } from '../balancer/balancer.js';
import type { Clock } from '../clock.js';
import type { Batch, Config, HostConfig } from '../config/types.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import type { Hooks } from '../hooks/hooks.js';
import type { EvidenceDeps } from '../evidence/create-source.js';
import type { Receipt } from '../evidence/kit/figures.js';
import type { JudgedWave } from '../evidence/wave-judge.js';
import type { Log } from '../log.js';

export interface RolloutDeps {
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Log;
  /** aborts on Ctrl-C / SIGTERM: stop at the next safe point */
  readonly signal: AbortSignal;
  /** aborts on a second one: a read-only step in flight (a verify) is not waited for */
  readonly urgent?: AbortSignal;
  readonly balancer: Balancer;
  agent(host: HostConfig): Promise<HostAgent>;
  /** who is deploying: user@machine, for the drain marker and the audit */
  readonly who: string;
  /**
   * sha256 of the host config `deploy setup` would publish from this deploy.yml:
   * a host whose agent reads another one checks and stops by other rules
   */
  readonly hostConfigSha256?: string;
  /** where `env.secret` values are read (rollout/release-env.ts); process.env when absent */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** pre-host / post-host around each host's handshake */
  readonly hooks?: Hooks;
  /** where the receipt and the canary's counts come from; none: neither is taken */
  readonly evidence?: EvidenceDeps;
  /** hosts left out unreachable (rollout.unreachable: skip): the capacity guard counts them as not serving */
  readonly notServing?: ReadonlySet<string>;
}

export interface RolloutOptions {
  readonly release: string;
  readonly hosts?: readonly string[];
  readonly batch?: Batch;
  readonly dryRun: boolean;
  readonly rollback: boolean;
  /**
   * false: the release is already on every host (`deploy rollback`): nothing is
   * published, and a host without it refuses the rollout in preflight
   */
  readonly publish?: boolean;
  /** --artifact: a .tar.gz, .tgz or directory ({release} replaced); else rollout.artifact */
  readonly artifact?: string;
}

/**
 * Every step of a host's lists, each its own name, as a value too: what a host's
 * deploy records (its audit line's `step`) is among these, and `deploy report`
 * draws those. The quiet ones (docs/architecture.md) are never recorded; their
 * name is what a failure or an interrupt during them says.
 */
export const STEP_NAMES = [
  'pre-host',
  'post-host',
  'prepare',
  'lock',
  'capacity',
  'drain',
  'warm',
  'await-out',
  'overlap',
  'stop',
  'switch',
  'start',
  'verify',
  'undrain',
  'await-in',
  'confirm',
  'close-receipt',
  'unlock',
  'rollback',
  'rollback-gate',
  'repair-note',
  'repair-gate',
] as const;

export type StepName = (typeof STEP_NAMES)[number];

export interface StepRecord {
  readonly step: StepName;
  /** ms since the rollout started */
  readonly offset_ms: number;
  readonly duration_ms: number;
  readonly ok: boolean;
  readonly detail?: string;
  /** for balancer waits: the bound the step was held to */
  readonly bound_ms?: number;
  /**
   * for balancer waits through several balancers: ms until each one, by its
   * name, agreed (had the target out, or back in); null: not within the bound
   */
  readonly balancers?: Readonly<Record<string, number | null>>;
}

export type HostResult = 'deployed' | 'rolled-back' | 'failed' | 'interrupted';

export interface HostOutcome {
  readonly host: string;
  readonly result: HostResult;
  readonly steps: readonly StepRecord[];
  /** the step that failed or was interrupted */
  readonly stoppedAt?: StepName;
  readonly error?: string;
  /** the host is left drained (out of rotation) and needs an operator */
  readonly leftDrained: boolean;
  /** refused before anything changed on it (its lock was taken): exit 3, not 1 */
  readonly blocked?: boolean;
  /** its host lock was lost mid-handshake (gone stale, or its holder or connection ended) */
  readonly lockLost?: boolean;
}

export interface RolloutResult {
  readonly ok: boolean;
  readonly release: string;
  readonly hosts: readonly HostOutcome[];
  /** hosts of the plan that were never touched */
  readonly notReached: readonly string[];
  /** hosts of the plan left out because the network did not reach them (rollout.unreachable: skip) */
  readonly skipped?: readonly SkippedHost[];
  readonly elapsed_ms: number;
  /** the rollout was refused before a wave for this reason (capacity guard): exit 3 */
  readonly blocked?: string;
  /** the release could not be prepared on a host of the next wave (publish, pull): exit 1, that wave not drained */
  readonly prepareFailed?: string;
  /** rollout.on_failure rollback: the hosts already on the new release, returned wave by wave */
  readonly fleetRollback?: FleetRollbackResult;
  /** the release each host of the plan ended on, as its agent said at the end (null: none, or no answer) */
  readonly ended?: readonly HostRelease[];
  /** what the balancer saw per host and in all (docs/json.md) */
  readonly receipt?: Receipt;
  /** the canary's bake, the bakes between waves and the watch, as judged */
  readonly judgements?: readonly JudgedWave[];
  /** after a successful rollout: the releases each host removed (rollout.keep_releases) */
  readonly pruned?: readonly PrunedHost[];
  /** a dry run: the steps each host would run, with their bounds */
  readonly handshakes?: readonly HostHandshakePlan[];
}

export interface HostRelease {
  readonly host: string;
  readonly release: string | null;
}

export interface FleetRollbackResult {
  /** each host's handshake back to the release it ran before */
  readonly hosts: readonly HostOutcome[];
  /** hosts that stay on the new release: why (ran no release before, the rollback stopped first) */
  readonly kept: readonly { readonly host: string; readonly reason: string }[];
  /** the capacity guard refused a rollback wave */
  readonly blocked?: string;
}

export interface PrunedHost {
  readonly host: string;
  readonly removed: readonly string[];
}

/** What a handshake step changes on the host (its undo takes it back). */
export type Change = 'locked' | 'drained' | 'stopped' | 'switched' | 'started' | 'undrained';

export interface PlannedStep {
  readonly step: StepName;
  readonly bound_ms?: number;
  readonly changes?: Change;
  /** it runs beside this step and nothing waits for it: its bound is inside that one's time */
  readonly beside?: StepName;
}

/** One host's handshake as a dry run shows it. */
export interface HostHandshakePlan {
  readonly host: string;
  /** what the host runs now: what a failure from `stop` on rolls it back to */
  readonly release_before: string | null;
  readonly steps: readonly PlannedStep[];
}
