import type { DrainConfig, Duration, HealthCheckSettings } from '../config/types.js';
import { awaitInBound, awaitOutBound } from './bounds.js';
import { timingModel } from './model.js';
import type { KindInvariants, TimingInput, TimingModel } from './types.js';

/** One balancer's settings, by the name output uses. */
export interface NamedSettings {
  readonly name: string;
  readonly settings: HealthCheckSettings;
  /** its kind's own invariants (BalancerKind.invariants), held beside the shared ones */
  readonly invariants?: KindInvariants;
}

export interface BalancerModel {
  readonly name: string;
  readonly model: TimingModel;
}

/** A bound and the balancer whose numbers set it. */
export interface NamedBound {
  readonly ms: Duration;
  readonly by: string;
}

/**
 * How long the rollout waits for a target to leave (or rejoin) rotation on
 * one balancer: the model's bound, plus one check timeout, because a check
 * that started inside the bound may still be answering.
 */
export function awaitOutWait(settings: HealthCheckSettings, drain: DrainConfig): Duration {
  return awaitOutBound(settings, drain) + settings.timeout;
}

/**
 * Await-in waits one check interval more than await-out's rule gives. A healthy
 * target comes back later than its checks alone say: the service first sees
 * the marker gone (the health library reads it at most every 250 ms), each of
 * the `healthy_threshold` checks ends up to `timeout` after it starts, and the
 * rollout's poll sees the result a poll later. In the rollout bench a healthy
 * target came back at up to 92–95 % of the wait without that interval, and a
 * lab rollout failed for it (docs/benchmarks.md). Only a
 * release the balancer never accepts waits the extra interval.
 */
export function awaitInWait(settings: HealthCheckSettings): Duration {
  return awaitInBound(settings) + settings.timeout + settings.interval;
}

export interface SlowestBounds {
  readonly awaitOut: NamedBound;
  readonly awaitIn: NamedBound;
  /** the shortest interval: polls see the fastest balancer's change within a fraction of it */
  readonly interval: Duration;
}

/** Several balancers: every wait lasts until the slowest of them is done. */
export function slowestBounds(all: readonly NamedSettings[], drain: DrainConfig): SlowestBounds {
  const largest = (wait: (s: HealthCheckSettings) => Duration): NamedBound =>
    all.map((b) => ({ ms: wait(b.settings), by: b.name })).reduce((a, b) => (b.ms > a.ms ? b : a));
  return {
    awaitOut: largest((s) => awaitOutWait(s, drain)),
    awaitIn: largest(awaitInWait),
    interval: Math.min(...all.map((b) => b.settings.interval)),
  };
}

/** The model of each balancer: every invariant holds on every one. */
export function modelsPerBalancer(
  input: Omit<TimingInput, 'settings'>,
  all: readonly NamedSettings[],
): BalancerModel[] {
  return all.map((b) => ({
    name: b.name,
    model: timingModel({ ...input, settings: b.settings }, b.invariants),
  }));
}

/** The balancer whose host window is longest: the timeline `deploy check` shows. */
export function slowestModel(models: readonly BalancerModel[]): BalancerModel {
  return models.reduce((a, b) =>
    b.model.timeline.hostWindow > a.model.timeline.hostWindow ? b : a,
  );
}

/** Every balancer's model, the slowest of them (whose timeline is shown) and the bounds they set together. */
export interface FleetTiming {
  readonly models: readonly BalancerModel[];
  readonly slowest: BalancerModel;
  readonly bounds: SlowestBounds;
}

/** What `deploy check` and a dry run show of the balancers' numbers, alike. */
export function fleetTiming(
  input: Omit<TimingInput, 'settings'>,
  all: readonly NamedSettings[],
): FleetTiming {
  const models = modelsPerBalancer(input, all);
  return { models, slowest: slowestModel(models), bounds: slowestBounds(all, input.drain) };
}
