import { awaitInBound, batchSize, waves } from './bounds.js';
import { formatDuration as fmt } from './duration.js';
import type { Invariant, TimingInput } from './types.js';

/**
 * The waves with a canary first, and the time the rollout spends judging
 * traffic rather than deploying: the canary's bake, a bake between every
 * later wave, and the watch after the last.
 */
export interface BakePlan {
  /** hosts in the canary wave; 0 without a canary */
  readonly canaryHosts: number;
  readonly waves: number;
  readonly canaryBake: number;
  /** between later waves, in all */
  readonly bakes: number;
  readonly watch: number;
  /** canaryBake + bakes + watch */
  readonly total: number;
}

export function bakePlan(input: TimingInput): BakePlan {
  const { rollout, hosts } = input;
  const size = batchSize(rollout.batch, hosts);
  const canary = rollout.canary;
  const canaryHosts = canary ? batchSize(canary.hosts, hosts) : 0;
  const later = waves(hosts - canaryHosts, size);
  const count = later + (canaryHosts > 0 ? 1 : 0);
  const canaryBake = canary ? canary.bake : 0;
  // a bake follows every wave but the last, whose hosts the watch judges instead
  const between = Math.max(0, later - 1) * (rollout.bake ?? 0);
  const watch = rollout.watch ?? 0;
  return {
    canaryHosts,
    waves: count,
    canaryBake,
    bakes: between,
    watch,
    total: canaryBake + between + watch,
  };
}

/**
 * A canary judged on traffic it does not get yet cannot work: the bake must
 * outlast what the balancer takes to bring a host all the way back (its
 * healthy threshold and any slow start), or the verdict is read from a host
 * still warming up.
 */
export function canaryInvariants(input: TimingInput): Invariant[] {
  const canary = input.rollout.canary;
  if (canary === undefined) return [];
  const back = awaitInBound(input.settings);
  const ok = canary.bake > back;
  return [
    {
      id: 'canary-bake',
      severity: 'error',
      ok,
      message: ok
        ? `canary bake ${fmt(canary.bake)} > ${fmt(back)} the balancer takes to bring a host back`
        : `canary bake ${fmt(canary.bake)} ≤ ${fmt(back)} the balancer takes to bring a host back (healthy threshold, slow start): the canary would be judged before it takes its share of traffic; make rollout.canary.bake longer than ${fmt(back)}`,
    },
  ];
}
