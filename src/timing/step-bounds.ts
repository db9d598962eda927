import { timerMs } from '../config/kit/duration.js';
import type { CheckConfig, DrainConfig, RolloutConfig } from '../config/types.js';

/** The handshake's steps that are held to a bound of the timing model, in the handshake's order. */
export const BOUNDED_STEPS = [
  'await-out',
  'overlap',
  'stop',
  'verify',
  'await-in',
  'confirm',
] as const;

export type BoundedStep = (typeof BOUNDED_STEPS)[number];

/** Each bounded step's worst case, in ms. */
export type StepBounds = Readonly<Record<BoundedStep, number>>;

/** The balancer's two waits (the slowest balancer's, through several): timing/bounds.ts. */
export interface BalancerWaits {
  readonly awaitOut: number;
  readonly awaitIn: number;
}

/**
 * The bound of each step of a host's handshake: the one source the lists
 * (rollout/handshake/lists.ts, and so the dry run and the progress), the
 * timeline (`deploy check`), the drain marker's lease and the rollback budget
 * are derived from.
 */
export function stepBounds(
  config: { readonly drain: DrainConfig; readonly rollout: RolloutConfig },
  waits: BalancerWaits,
): StepBounds {
  const { drain, rollout } = config;
  return {
    'await-out': waits.awaitOut,
    overlap: drain.overlap,
    stop: drain.stopTimeout,
    verify: rollout.verifyTimeout,
    'await-in': waits.awaitIn,
    confirm: rollout.verifyTimeout,
  };
}

/** A host's whole handshake, worst case: every bounded step in turn (the timeline's host window). */
export function hostWindowMs(bounds: StepBounds): number {
  return BOUNDED_STEPS.reduce((sum, step) => sum + bounds[step], 0);
}

/**
 * How long the drain marker is good for if the orchestrator dies: the whole
 * handshake, twice, within what a timer holds (a lease the agent refuses
 * would fail the drain).
 */
export function drainLeaseMs(bounds: StepBounds): number {
  return timerMs(2 * hostWindowMs(bounds));
}

/** how long a walk-back may take past the steps it runs: a minute */
const ROLLBACK_SPARE_MS = 60_000;

/**
 * A walk-back's own time budget: at worst it runs the handshake's steps again
 * toward the previous release (await-out, overlap, stop, verify, await-in; no
 * confirm), and a minute, within what a timer holds.
 */
export function rollbackBudgetMs(bounds: StepBounds): number {
  return timerMs(hostWindowMs(bounds) - bounds.confirm + ROLLBACK_SPARE_MS);
}

/**
 * After a drain, how long the checks' warm-up waits before its pass
 * (host/checks/warm.ts): well inside the balancer's wait that follows (at
 * least one check interval, seconds), and past the drain's answer on its way
 * back through SSH, which its CPU slowed on a busy host when it came at once
 * (the bench's drain step: 4 ms median before, 10-17 after).
 */
export const WARM_AFTER_MS = 250;

/**
 * The bound of the `warm` step's work on the host: its wait, then one pass of
 * the HTTP checks at once, each within its own timeout; 0 with no HTTP check
 * (nothing to warm). The host runs it beside await-out and nothing waits for
 * it, so the host window (hostWindowMs) does not count it again.
 */
export function warmBoundMs(services: readonly { readonly check: CheckConfig }[]): number {
  const timeouts = services.flatMap(({ check }) => (check.kind === 'http' ? [check.timeout] : []));
  return timeouts.length === 0 ? 0 : WARM_AFTER_MS + Math.max(...timeouts);
}
