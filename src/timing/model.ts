import type { Config, HealthCheckSettings } from '../config/types.js';
import { canaryInvariants } from './bake.js';
import { drainInvariants } from './drain-invariants.js';
import { fleetInvariants } from './fleet-invariants.js';
import { buildTimeline } from './timeline.js';
import type { KindInvariants, TimingInput, TimingModel } from './types.js';

/**
 * The drain timeline and the invariants between the numbers. Pure: the caller
 * chooses the health-check settings (deploy.yml, or the balancer's live ones),
 * and gives the balancer's kind's own invariants of them.
 */
export function timingModel(input: TimingInput, kindInvariants?: KindInvariants): TimingModel {
  const timeline = buildTimeline(input);
  return {
    timeline,
    invariants: [
      ...drainInvariants(input),
      ...(kindInvariants?.(input) ?? []),
      ...fleetInvariants(input, timeline),
      ...canaryInvariants(input),
    ],
  };
}

export function timingInputFromConfig(config: Config, settings: HealthCheckSettings): TimingInput {
  return { settings, ...timingBaseFromConfig(config) };
}

/** Everything but the balancer's settings: the part every balancer's model shares. */
export function timingBaseFromConfig(config: Config): Omit<TimingInput, 'settings'> {
  return {
    drain: config.drain,
    rollout: config.rollout,
    watchdog: config.watchdog,
    services: config.services,
    hosts: config.hosts.length,
  };
}
