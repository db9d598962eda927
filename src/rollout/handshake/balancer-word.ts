import type { TargetState } from '../../balancer/balancer.js';
import type { HostConfig } from '../../config/types.js';
import { describeState } from '../rotation.js';
import type { RolloutDeps, StepName } from '../types.js';

/**
 * The balancer's word on the target while a step waits for it, as a debug
 * event when it changes: the progress line shows it, `--json` keeps it.
 */
export function balancerWord(
  deps: RolloutDeps,
  host: HostConfig,
): (step: StepName) => (state: TargetState | undefined) => void {
  return (step) => {
    let last: string | undefined;
    return (state) => {
      const word = describeState(state);
      if (word === last) return;
      last = word;
      deps.log.emit({
        level: 'debug',
        event: 'balancer.state',
        message: `${host.target} ${word}`,
        host: host.name,
        fields: {
          step,
          target: host.target,
          state: state?.state ?? null,
          inRotation: state?.inRotation ?? null,
          ...(state?.reason ? { reason: state.reason } : {}),
        },
      });
    };
  };
}
