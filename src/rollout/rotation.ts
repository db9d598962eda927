import type { Balancer, TargetState } from '../balancer/balancer.js';
import type { Clock } from '../clock.js';
import type { DrainConfig } from '../config/types.js';
import { slowestBounds, type NamedSettings } from '../timing/index.js';
import { pollUntil } from './poll.js';

/** How long a rollout, `deploy drain` and `deploy undrain` wait for the balancer. */
export interface Bounds {
  readonly awaitOut: number;
  readonly awaitIn: number;
  readonly interval: number;
}

/** Several balancers: each wait is the largest of theirs (a set of one: its own). */
export function boundsOfBalancers(all: readonly NamedSettings[], drain: DrainConfig): Bounds {
  const slowest = slowestBounds(all, drain);
  return {
    awaitOut: slowest.awaitOut.ms,
    awaitIn: slowest.awaitIn.ms,
    interval: slowest.interval,
  };
}

export interface RotationWait {
  readonly met: boolean;
  readonly elapsed: number;
  readonly last: TargetState | undefined;
}

/**
 * Poll often enough to see the change within a fraction of one health-check
 * interval, but not so often that a balancer API's rate limit bites.
 */
export function pollEvery(interval: number): number {
  return Math.max(100, Math.min(Math.floor(interval / 4), 2000));
}

/**
 * Wait until the balancer reports the target in (or out of) rotation, within
 * `bound`. A balancer that cannot tell (no API) is waited out for the whole
 * worst-case bound: the model's numbers are then the only evidence we have.
 */
export async function awaitRotation(
  balancer: Balancer,
  target: string,
  want: boolean,
  bound: number,
  interval: number,
  clock: Clock,
  signal: AbortSignal,
  /** each answer of the balancer, for the progress shown while waiting */
  onState?: (state: TargetState | undefined) => void,
): Promise<RotationWait> {
  if (balancer.blind === true) {
    await clock.sleep(bound, signal);
    return { met: true, elapsed: bound, last: undefined };
  }
  const r = await pollUntil(
    async () => {
      const state = (await balancer.states([target])).get(target);
      onState?.(state);
      return state;
    },
    (s) => s?.inRotation === want,
    { clock, every: pollEvery(interval), within: bound, signal },
  );
  return { met: r.met, elapsed: r.elapsed, last: r.value };
}

export function describeState(s: TargetState | undefined): string {
  if (!s) return 'unknown to the balancer';
  return `${s.state}${s.reason ? ` (${s.reason})` : ''}`;
}
