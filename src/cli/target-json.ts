import { messageOf } from '../errors.js';
import type { Balancer, TargetState } from '../balancer/balancer.js';
import type { HostConfig } from '../config/types.js';

/** A target's state for --json: several balancers' views as a list, each by its name. */
export type TargetJson = Omit<TargetState, 'each'> & {
  readonly balancers?: readonly (Omit<TargetState, 'each'> & { readonly name: string })[];
};

/**
 * A target's state as `verify`, `status` and `rollout` print it under
 * `--json`, one shape for all three: `{target, state, in_rotation, reason?,
 * unregistered?, balancers?}`; a target the balancer did not report is
 * `unknown`, with why. With several balancers, `balancers` holds each one's
 * view by name (its own target, state and reason).
 */
export function targetJson(
  target: string,
  state: TargetState | undefined,
  why = 'the balancer did not report it',
): TargetJson {
  if (!state) return { target, state: 'unknown', inRotation: null, reason: why };
  const { each, ...combined } = state;
  if (!each) return combined;
  return { ...combined, balancers: [...each].map(([name, s]) => ({ name, ...s })) };
}

/**
 * The balancer's word on these hosts' targets, read once, for a command's
 * result; a balancer that cannot be read makes every one `unknown` with its
 * reason rather than failing a command that has already done its work.
 */
export async function targetStates(
  balancer: () => Promise<Pick<Balancer, 'states'>>,
  hosts: readonly HostConfig[],
): Promise<(host: HostConfig) => TargetJson> {
  try {
    const states = await (await balancer()).states(hosts.map((h) => h.target));
    return (h) => targetJson(h.target, states.get(h.target));
  } catch (error) {
    const why = `the balancer could not be read: ${messageOf(error)}`;
    return (h) => targetJson(h.target, undefined, why);
  }
}
