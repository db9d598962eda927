import type {
  CheckThresholds,
  DrainConfig,
  Duration,
  HealthCheckSettings,
  RolloutConfig,
  ServiceConfig,
  WatchdogConfig,
} from '../config/types.js';

/**
 * Everything the timing model reads: plain numbers, so `deploy check --live`
 * can swap in the balancer's real settings. A kind's invariants read its own
 * settings beside the core's (`S`, which extends them with optional fields).
 */
export interface TimingInput<S extends HealthCheckSettings = HealthCheckSettings> {
  readonly settings: S;
  readonly drain: DrainConfig;
  readonly rollout: RolloutConfig;
  readonly watchdog: WatchdogConfig;
  readonly services: readonly (Pick<ServiceConfig, 'name' | 'keepAliveTimeout'> & {
    /** a check's own failures_before_restart restarts its service sooner or later */
    readonly check?: Pick<CheckThresholds, 'failuresBeforeRestart'>;
  })[];
  /** how many hosts the rollout covers */
  readonly hosts: number;
}

export type PhaseId =
  'drain' | 'await-out' | 'overlap' | 'stop' | 'start-verify' | 'await-in' | 'confirm';

/** One step of a host's deploy with its worst-case duration. */
export interface Phase {
  readonly id: PhaseId;
  /** worst case */
  readonly duration: Duration;
  /** from the start of the host's drain */
  readonly offset: Duration;
  /** where the bound comes from, e.g. `interval 5s × unhealthy_threshold 2` */
  readonly basis: string;
}

export interface Timeline {
  readonly phases: readonly Phase[];
  /** drain → confirmed: how long one host (one batch) is out of the fleet at worst */
  readonly hostWindow: Duration;
  /** drain → verified: the time the host's services answer 503 or nothing on purpose */
  readonly unhealthyWindow: Duration;
  /** hosts drained at once, resolved against the host count */
  readonly batchSize: number;
  readonly waves: number;
  /** hosts in the canary wave, 0 without one */
  readonly canaryHosts: number;
  /** canary bake + bakes between waves + watch */
  readonly bakingMs: Duration;
  /** waves × hostWindow + the baking */
  readonly rolloutWorstCase: Duration;
}

/** The invariants every balancer's numbers are held to. */
export type InvariantId =
  | 'drain-before-stop'
  | 'request-before-kill'
  | 'deregistration-delay'
  | 'check-timeout'
  | 'capacity'
  | 'keep-alive'
  | 'time-back'
  | 'watchdog-vs-drain'
  | 'canary-bake';

export interface Invariant {
  /** one of InvariantId, or a balancer kind's own (KindInvariants) */
  readonly id: string;
  readonly severity: 'error' | 'warning';
  readonly ok: boolean;
  /** states the actual numbers, and on failure what to change */
  readonly message: string;
  /** the service an invariant is about, for per-service invariants (`keep-alive`) */
  readonly subject?: string;
  /** the deploy.yml key its fix most likely changes, when a kind's invariant has one (invariant-keys.ts has the shared ones') */
  readonly key?: string;
}

/**
 * A balancer kind's own invariants of one balancer's settings (what only its
 * configuration can say about a drain), given by the kind's folder: pure, like
 * the rest of the model.
 */
export type KindInvariants = (input: TimingInput) => readonly Invariant[];

export interface TimingModel {
  readonly timeline: Timeline;
  readonly invariants: readonly Invariant[];
}
