import type { TargetState } from '../balancer/balancer.js';

export interface CapacityVerdict {
  readonly ok: boolean;
  /** targets in rotation that are not part of this wave */
  readonly othersHealthy: number;
  /** targets of this wave that are in rotation now (draining them costs capacity) */
  readonly costing: readonly string[];
  readonly message: string;
}

/**
 * The capacity guard. An ALB whose targets are all unhealthy fails open and
 * sends traffic to the drained host anyway, so at least `minHealthy` *other*
 * targets must be in rotation before a healthy one is drained. A target that is
 * already out (first deploy, a host that is down) costs nothing and is never
 * blocked. A balancer that cannot tell (static) counts every target as in.
 */
export function checkCapacity(
  wave: readonly string[],
  allTargets: readonly string[],
  states: ReadonlyMap<string, TargetState>,
  minHealthy: number,
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
  const ok = othersHealthy >= minHealthy;
  const message = ok
    ? `${othersHealthy} other target(s) in rotation, min_healthy ${minHealthy}`
    : `only ${othersHealthy} other target(s) in rotation, min_healthy is ${minHealthy}: draining ${costing.join(', ')} would leave too few`;
  return { ok, othersHealthy, costing, message };
}
