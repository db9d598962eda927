import type { TargetState } from '../balancer/balancer.js';
import { describeMinimum, healthyNeeded, type FailOpenMinimum } from '../balancer/fail-open.js';

export interface CapacityVerdict {
  readonly ok: boolean;
  /** targets in rotation that are not part of this wave */
  readonly othersHealthy: number;
  /** targets of this wave that are in rotation now (draining them costs capacity) */
  readonly costing: readonly string[];
  readonly message: string;
}

/**
 * The capacity guard: at least `minHealthy` *other* targets must be in
 * rotation before a healthy one is drained. An ALB whose healthy targets fall
 * below its unhealthy-state routing minimum (`failOpen`) fails open and sends
 * traffic to the drained host anyway, so the wave must also leave that many.
 * A target that is already out (first deploy, a host that is down) costs
 * nothing and is never blocked. A balancer that cannot tell (static) counts
 * every target as in.
 */
export function checkCapacity(
  wave: readonly string[],
  allTargets: readonly string[],
  states: ReadonlyMap<string, TargetState>,
  minHealthy: number,
  failOpen?: FailOpenMinimum,
): CapacityVerdict {
  const inWave = new Set(wave);
  const inRotation = (t: string): boolean => states.get(t)?.inRotation ?? true;
  const costing = wave.filter(inRotation);
  const othersHealthy = allTargets.filter((t) => !inWave.has(t) && inRotation(t)).length;
  if (costing.length === 0) {
    return {
      ok: true,
      othersHealthy,
      costing,
      message: 'no target of this wave is in rotation: draining costs no capacity',
    };
  }
  if (othersHealthy < minHealthy) {
    const message = `only ${othersHealthy} other target(s) in rotation, min_healthy is ${minHealthy}: draining ${costing.join(', ')} would leave too few`;
    return { ok: false, othersHealthy, costing, message };
  }
  const needed = failOpen ? healthyNeeded(failOpen, allTargets.length) : 0;
  if (failOpen && othersHealthy < needed) {
    const message = `draining ${costing.join(', ')} would leave ${othersHealthy} healthy target(s), below the target group's unhealthy-state routing minimum of ${describeMinimum(failOpen)}: the ALB would fail open and route requests to the drained host(s); lower target_group_health.unhealthy_state_routing.minimum_healthy_targets or add hosts`;
    return { ok: false, othersHealthy, costing, message };
  }
  const message = `${othersHealthy} other target(s) in rotation, min_healthy ${minHealthy}${failOpen ? `, fail-open minimum ${needed}` : ''}`;
  return { ok: true, othersHealthy, costing, message };
}
