import type { HeldLock, LockLoss } from '../../agent-client/client.js';
import type { HostAgent } from '../../agent-client/host-agent.js';
import type { FailOpenMinimum } from '../../balancer/fail-open.js';
import type { HostWindow } from '../../evidence/receipt.js';
import type { HostConfig } from '../../config/types.js';
import { hostActions, type HostActions } from '../host-actions.js';
import type { StepRecorder } from '../recorder.js';
import type { Bounds } from '../rotation.js';
import type { Change, RolloutDeps, StepName, StepRecord } from '../types.js';
import { StepResults, type HandOf } from './results.js';
import type { WaveRead } from './wave-read.js';

/** One host's handshake: who runs it, toward which release, within which bounds. */
export interface HostRun {
  readonly deps: RolloutDeps;
  readonly host: HostConfig;
  readonly agent: HostAgent;
  readonly release: string;
  /** a failure from `stop` on rolls the host back (false: --no-rollback, left drained) */
  readonly rollback: boolean;
  readonly bounds: Bounds;
  readonly rec: StepRecorder;
  readonly leaseMs: number;
  /** the release live on the host before this rollout (what a rollback returns to) */
  readonly liveBefore: string | null;
  /**
   * going back to a release that ran before (`deploy rollback`, on_failure
   * rollback): it may predate x-release, so expect_release accepts none
   */
  readonly returning?: boolean;
  /**
   * the host's receipt window: opened beside its lock and awaited before anything on the
   * host changes, its end read beside confirm's last pass, closed for the audit before the unlock
   */
  readonly receipt?: HostWindow;
  /**
   * told as the host's overlap begins, a plain wait (overlap > 0 is a rule of the timing
   * model): work of the run's own that no step needs may go there (waves.ts)
   */
  readonly waiting?: () => void;
  /** what the capacity step guards: the wave going out with this host, each balancer's fail-open minimum */
  readonly guard?: HostGuard;
}

export interface HostGuard {
  /** the hosts drained together with this one (this one among them) */
  readonly wave: readonly HostConfig[];
  readonly failOpen: ReadonlyMap<string, FailOpenMinimum>;
  /** the wave's hosts share a read of the others begun after their locks (wave-read.ts) */
  readonly shared?: WaveRead;
  /** the agent to ask another host's status: its open session where it has one (else deps.agent) */
  readonly reader?: (host: HostConfig) => Promise<HostAgent>;
}

/** What a host has been through so far: what a failure has to undo, and what is reported. */
export interface HostProgress {
  step: StepName;
  lock?: HeldLock;
  drained: boolean;
  stopped: boolean;
  /** the stop answered without proving every service stopped: some may still run the old release */
  stopUnproven: boolean;
  /** the switch to the new release was sent (it may have happened even if it failed) */
  switched: boolean;
  /** undrained after the new release started: the balancer may route to it */
  exposed: boolean;
  /** switched back to the release that ran before (a repair's switch back) */
  returned: boolean;
  lockLost: boolean;
  /** how the lock went away, once lost: whether the connection survived it */
  loss?: LockLoss;
  /** what the lock step took it as: what taking it again after a loss says */
  lockedAs?: { readonly what: string; readonly message: string };
}

export function freshProgress(): HostProgress {
  return {
    step: 'pre-host',
    drained: false,
    stopped: false,
    stopUnproven: false,
    switched: false,
    exposed: false,
    returned: false,
    lockLost: false,
  };
}

/** Everything a step may read or change while it runs. */
export interface HostContext {
  readonly run: HostRun;
  readonly actions: HostActions;
  readonly progress: HostProgress;
  /** the handshake's signal, or a rollback's own budget while walking back */
  signal: AbortSignal;
  /** a verify in flight is abandoned when it aborts (a second Ctrl-C); none while walking back */
  cut?: AbortSignal;
  /** the steps that began, in order: what a walk-back undoes */
  readonly reached: HostStep[];
  /** what the steps run so far handed on, by their names (results.ts): the runner keeps them */
  readonly results: StepResults;
  /** ends the handshake's wait at once: the lock holder went away */
  abort(reason: Error): void;
}

/**
 * What a step's record says; `error` fails the step after it is recorded.
 * `hands`: what it hands on to later steps, by its name (results.ts).
 */
export interface StepVerdict<N extends StepName = StepName> {
  readonly ok?: boolean;
  readonly detail?: string;
  readonly bound_ms?: number;
  readonly balancers?: StepRecord['balancers'];
  readonly error?: Error;
  readonly hands?: HandOf<N>;
}

/**
 * One step of a host's handshake: a name, a time bound from the timing model,
 * what it changes, and how that is undone. Steps are data: lists of them are
 * built without I/O (lists.ts) and run by one runner (runner.ts).
 */
export interface HostStep<N extends StepName = StepName> {
  readonly name: N;
  /** how long it may take: shown in the plan and the progress, held by the step itself */
  readonly boundMs?: number;
  readonly changes?: Change;
  run(ctx: HostContext): Promise<StepVerdict<N> | void>;
  /** the steps that take this one's change back, when a later step fails */
  readonly undo?: (ctx: HostContext) => readonly HostStep[];
  /** its undo returns the host to the previous release: only when rolling back is allowed */
  readonly rollsBack?: boolean;
  /** run only when this holds at its turn (repair's switch back runs only if verify failed) */
  readonly when?: (ctx: HostContext) => boolean;
  /** once it is recorded (the lock's own line is not audited through the lock it took) */
  readonly after?: (ctx: HostContext) => void;
  /** not recorded as a step of its own (the lock released between a drain and its wait) */
  readonly quiet?: boolean;
  /**
   * its work runs on the host beside this step and nothing waits for it (the
   * warm-up beside await-out): its bound is inside that one's time, not added to it
   */
  readonly beside?: StepName;
}

/**
 * A list of steps as it is run and planned: its steps in order, and its end,
 * which the runner runs whatever happened (the unlock: drain-steps.ts listEnd).
 */
export interface HostList {
  readonly steps: readonly HostStep[];
  readonly end: readonly HostStep[];
}

/**
 * A fresh context for one run of a list on a host: its drain actions, its
 * progress, and a signal that fires on the command's abort (Ctrl-C) or when
 * the lock holder goes away.
 */
export function hostContext(run: HostRun): HostContext {
  const { deps, host, agent } = run;
  const controller = new AbortController();
  return {
    run,
    actions: hostActions(deps, host, agent, run.release, run.leaseMs),
    progress: freshProgress(),
    signal: AbortSignal.any([deps.signal, controller.signal]),
    ...(deps.urgent ? { cut: AbortSignal.any([deps.urgent, controller.signal]) } : {}),
    reached: [],
    results: new StepResults(),
    abort: (reason) => controller.abort(reason),
  };
}
