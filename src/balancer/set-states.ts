import type { TargetState } from './balancer.js';

export interface MemberView {
  readonly name: string;
  /** this balancer's state of the host whose default target is given */
  readonly state: (target: string) => TargetState | undefined;
}

/**
 * Several balancers' word on one host as one state: in rotation when every
 * one has it in, out when every one has it out, and otherwise neither
 * (`mixed`), so a wait for either goes on. The reason names each balancer's
 * view ("lb-a: draining, lb-b: healthy"): a wait that times out says which
 * balancer still routes to the host.
 */
export function combineStates(target: string, views: readonly MemberView[]): TargetState {
  const each = views.map((v) => ({ name: v.name, s: v.state(target) ?? unknownState(target) }));
  const [first] = each;
  if (!first) return unknownState(target);
  if (each.length === 1) return { ...first.s, target };
  const reason = each.map(({ name, s }) => `${name}: ${describe(s)}`).join(', ');
  const unregistered = each.find(({ s }) => s.unregistered !== undefined)?.s.unregistered;
  const base = {
    target,
    reason,
    each: new Map(each.map(({ name, s }) => [name, s])),
    ...(unregistered ? { unregistered } : {}),
  };
  if (each.every(({ s }) => s.inRotation === true))
    return { ...base, state: first.s.state, inRotation: true };
  if (each.every(({ s }) => s.inRotation === false))
    return { ...base, state: first.s.state, inRotation: false };
  if (each.every(({ s }) => s.inRotation === null))
    return { ...base, state: 'unknown', inRotation: null };
  return { ...base, state: 'mixed', inRotation: null };
}

function describe(s: TargetState): string {
  return `${s.state}${s.reason ? ` (${s.reason})` : ''}`;
}

function unknownState(target: string): TargetState {
  return { target, state: 'unknown', inRotation: null };
}

/** One balancer's state of a target from a set's combined state (a set of one: the state itself). */
export function stateAt(state: TargetState | undefined, name: string): TargetState | undefined {
  return state?.each ? state.each.get(name) : state;
}
