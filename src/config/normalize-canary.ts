import type { RawConfig } from './schema.js';
import type { CanaryConfig, JudgementConfig } from './types.js';

/** `rollout.canary.latency_floor`'s default: below it a relative test fails healthy, fast canaries */
export const LATENCY_FLOOR_MS = 5;

type RawRollout = RawConfig['rollout'];

/**
 * The canary, bake and watch keys as the rollout reads them. The source
 * defaults to what the balancers can count per host when every one can
 * (`countsPerHost`: a balancer with per-server counters), else the services' own.
 */
export function canaryConfig(
  rollout: RawRollout,
  countsPerHost: boolean,
  local: (p: string) => string,
): { canary?: CanaryConfig; bake: number; watch: number; judgement: JudgementConfig } {
  const c = rollout.canary;
  const judgement: JudgementConfig = {
    source: c?.source ?? (countsPerHost ? 'balancer' : 'service'),
    ...(c?.command !== undefined && { command: local(c.command) }),
    commandTimeout: c?.command_timeout ?? 10_000,
    margin: c?.margin ?? 0.01,
    ...(c?.latency_margin !== undefined && { latencyMargin: c.latency_margin }),
    latencyFloor: c?.latency_floor ?? LATENCY_FLOOR_MS,
    minRequests: c?.min_requests ?? 100,
    inconclusive: c?.inconclusive ?? 'fail',
    poll: c?.poll ?? 5_000,
  };
  return {
    ...(c !== undefined && { canary: { hosts: c.hosts, bake: c.bake } }),
    bake: rollout.bake,
    watch: rollout.watch,
    judgement,
  };
}
