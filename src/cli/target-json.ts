import { messageOf } from '../errors.js';
import type { Balancer, TargetState } from '../balancer/balancer.js';
import type { HostConfig } from '../config/types.js';

/**
 * A target's state as `verify`, `status` and `rollout` print it under
 * `--json`, one shape for all three: `{target, state, in_rotation, reason?,
 * unregistered?}`; a target the balancer did not report is `unknown`, with why.
 */
export function targetJson(
  target: string,
  state: TargetState | undefined,
  why = 'the balancer did not report it',
): TargetState {
  return state ?? { target, state: 'unknown', inRotation: null, reason: why };
}

/**
 * The balancer's word on these hosts' targets, read once, for a command's
 * result; a balancer that cannot be read makes every one `unknown` with its
 * reason rather than failing a command that has already done its work.
 */
export async function targetStates(
  balancer: () => Promise<Pick<Balancer, 'states'>>,
  hosts: readonly HostConfig[],
): Promise<(host: HostConfig) => TargetState> {
  try {
    const states = await (await balancer()).states(hosts.map((h) => h.target));
    return (h) => targetJson(h.target, states.get(h.target));
  } catch (error) {
    const why = `the balancer could not be read: ${messageOf(error)}`;
    return (h) => targetJson(h.target, undefined, why);
  }
}
