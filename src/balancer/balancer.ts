import type { Clock } from '../clock.js';
import type { BalancerKindName } from '../config/balancer-kinds.js';
import type { HealthCheckSettings, SshConfig } from '../config/types.js';
import type { Log } from '../log.js';
import type { FailOpenMinimum } from './fail-open.js';

/**
 * What the balancer says of one target. `inRotation` is the only thing the
 * rollout decides on: true = receives new requests, false = does not,
 * null = this balancer cannot tell (no API).
 */
export interface TargetState {
  readonly target: string;
  readonly state:
    | 'healthy'
    | 'unhealthy'
    | 'draining'
    | 'initial'
    | 'unused'
    | 'unavailable'
    | 'unknown'
    /** several balancers, some with the target in rotation and some without (balancer/set.ts) */
    | 'mixed';
  readonly inRotation: boolean | null;
  readonly reason?: string;
  /**
   * set when the balancer does not have this target at all (`absent`), or has
   * its instance or address only on another port: no drain can work through it
   */
  readonly unregistered?: 'absent' | 'other-port';
  /** several balancers (balancer/set.ts): each one's own state of the target, by its name */
  readonly each?: ReadonlyMap<string, TargetState>;
}

export interface Balancer {
  readonly kind: BalancerKindName;
  /**
   * true when it cannot tell whether a target is in rotation (its states say
   * null): the rollout waits out the timing model's whole bound instead
   */
  readonly blind?: boolean;
  /** the health-check settings in force, in the shape the timing model takes */
  settings(): Promise<HealthCheckSettings>;
  /** the state of each named target; a target the balancer does not know is `unused` */
  states(targets: readonly string[]): Promise<ReadonlyMap<string, TargetState>>;
  /** drain.method deregister: stop sending new requests / take it back */
  deregister(target: string): Promise<void>;
  register(target: string): Promise<void>;
  /**
   * a balancer whose API may refuse the register a drain.method deregister
   * rollout needs to put every host back: prove it is allowed by registering
   * a target that is registered and healthy already, which changes nothing;
   * rejects naming the permission when it is not
   */
  proveRegister?(registeredTarget: string): Promise<void>;
  /** a balancer that fails open below a routing minimum: that minimum, for the capacity guard (fail-open.ts) */
  failOpenMinimum?(): Promise<FailOpenMinimum>;
  /** a balancer whose settings live in a config file: its text, read where it is; undefined without one */
  configText?(): Promise<string | undefined>;
  /**
   * a balancer that reloads (another process answering): call `listener` on
   * each reload seen (after the states handoff set are back); returns the unsubscribe
   */
  onReload?(listener: (reload: BalancerReload) => void): () => void;
  close(): Promise<void>;
}

/** A reload (another process answering) seen during a run, as it is logged. */
export interface BalancerReload {
  readonly message: string;
  /** the balancer's name, when it is one of several */
  readonly balancer?: string;
}

/** What an adapter that waits or reports needs from the run: its clock and its log. */
export interface BalancerDeps {
  readonly clock: Clock;
  readonly log: Log;
  /** the fleet's ssh settings, for a balancer on its own host (`ssh:` in its entry) */
  readonly ssh?: SshConfig;
}
