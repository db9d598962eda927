import type { TargetState } from '../balancer/balancer.js';
import type { HostStatus } from '../protocol/results.js';
import { describeMinimum, healthyNeeded, type FailOpenMinimum } from '../balancer/fail-open.js';
import { stateAt } from '../balancer/set-states.js';

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
 * rotation before a healthy one is drained. A balancer whose healthy targets
 * fall below its routing minimum (`failOpen`, fail-open.ts) fails open and
 * sends traffic to the drained host anyway, so the wave must also leave that many.
 * A target that is already out (first deploy, a host that is down) costs
 * nothing and is never blocked. A balancer that cannot tell (no API) counts
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
    const { words } = failOpen;
    const message = `draining ${costing.join(', ')} would leave ${othersHealthy} healthy target(s), below ${words.minimum} of ${describeMinimum(failOpen)}: ${words.balancer} would fail open and route requests to the drained host(s); lower ${words.setting} or add hosts`;
    return { ok: false, othersHealthy, costing, message };
  }
  const message = `${othersHealthy} other target(s) in rotation, min_healthy ${minHealthy}${failOpen ? `, fail-open minimum ${needed}` : ''}`;
  return { ok: true, othersHealthy, costing, message };
}

/** One balancer the guard holds on: its name and, when its kind has one, its fail-open minimum. */
export interface GuardedBalancer {
  readonly name: string;
  readonly failOpen?: FailOpenMinimum;
}

/**
 * The guard on every balancer: each must keep `minHealthy` other targets in
 * rotation (and its own fail-open minimum), since a client of one balancer
 * is served only by the targets that balancer routes to. The first balancer
 * that would fall short is the verdict, named when there are several.
 */
export function checkCapacityOnEach(
  wave: readonly string[],
  allTargets: readonly string[],
  states: ReadonlyMap<string, TargetState>,
  minHealthy: number,
  balancers: readonly GuardedBalancer[],
): CapacityVerdict {
  const several = balancers.length > 1;
  const verdicts = balancers.map((b) => {
    const own = new Map<string, TargetState>();
    for (const [t, s] of states) {
      const at = stateAt(s, b.name);
      if (at) own.set(t, at);
    }
    const v = checkCapacity(wave, allTargets, own, minHealthy, b.failOpen);
    return several ? { ...v, message: `${b.name}: ${v.message}` } : v;
  });
  const failed = verdicts.find((v) => !v.ok);
  if (failed || verdicts.length === 1) return failed ?? (verdicts[0] as CapacityVerdict);
  return {
    ok: true,
    othersHealthy: Math.min(...verdicts.map((v) => v.othersHealthy)),
    costing: [...new Set(verdicts.flatMap((v) => v.costing))],
    message: verdicts.map((v) => v.message).join('; '),
  };
}

/** A host the hosts themselves say is not serving, whatever the balancer says yet. */
export interface CountedOut {
  readonly host: string;
  readonly target: string;
  /** `drained by deploy drain by alice@laptop until …`, `lock held by deploy lock exec`, … */
  readonly why: string;
}

/** What one host's agent answered for the guard: its status, or why it could not be read. */
export type HostRead =
  | { readonly host: string; readonly target: string; readonly status: HostStatus }
  | { readonly host: string; readonly target: string; readonly error: string };

/**
 * The hosts that count as not serving by their own word: a drain marker (a
 * rollout's, `deploy drain`'s, a leftover: the balancer takes it out within
 * interval × unhealthy_threshold, so it is out already as far as capacity
 * goes), a host lock held by anyone but the watchdog (a deploy, a repair,
 * `deploy lock exec`: its services may stop at any moment; a watchdog tick
 * holds it for a moment and stands aside for a deploy), and a host whose
 * status could not be read (nothing says it serves).
 */
export function countedOut(reads: readonly HostRead[]): CountedOut[] {
  return reads.flatMap((r): CountedOut[] => {
    const out = (why: string) => [{ host: r.host, target: r.target, why }];
    if ('error' in r) return out(`status not read: ${r.error}`);
    const marker = r.status.draining;
    if (marker)
      return out(`drained by ${marker.by}${marker.until ? ` until ${marker.until}` : ''}`);
    const lock = r.status.lock;
    if (lock.locked && lock.holder?.what !== 'watchdog')
      return out(`lock held by ${lock.holder?.what ?? 'an unknown holder'}`);
    return [];
  });
}

/** The balancer's states with every counted-out host out of rotation on every balancer. */
export function withCountedOut(
  states: ReadonlyMap<string, TargetState>,
  out: readonly CountedOut[],
): Map<string, TargetState> {
  const merged = new Map(states);
  for (const o of out)
    merged.set(o.target, { target: o.target, state: 'unused', inRotation: false, reason: o.why });
  return merged;
}

/** `web-2 (drained by deploy drain by alice@laptop until …), web-3 (lock held by repair)` */
export function describeCountedOut(out: readonly CountedOut[]): string {
  return out.map((o) => `${o.host} (${o.why})`).join(', ');
}
