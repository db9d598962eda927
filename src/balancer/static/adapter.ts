import type { HealthCheckSettings } from '../../config/types.js';
import type { StaticBalancerConfig } from './config/entry.js';
import { OperationError } from '../../errors.js';
import type { Balancer, TargetState } from '../balancer.js';

/**
 * A balancer without an API (a managed one handoff cannot reach, or none):
 * its settings are what deploy.yml says, and it cannot tell whether a target
 * is in rotation, so the rollout waits out the timing model's bound instead.
 */
export class StaticBalancer implements Balancer {
  readonly kind = 'static';
  readonly blind = true;

  constructor(private readonly config: StaticBalancerConfig) {}

  settings(): Promise<HealthCheckSettings> {
    return Promise.resolve(this.config.healthCheck);
  }

  states(targets: readonly string[]): Promise<ReadonlyMap<string, TargetState>> {
    return Promise.resolve(
      new Map(targets.map((target) => [target, { target, state: 'unknown', inRotation: null }])),
    );
  }

  deregister(target: string): Promise<void> {
    return Promise.reject(cannot('deregister', target));
  }

  register(target: string): Promise<void> {
    return Promise.reject(cannot('register', target));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function cannot(what: string, target: string): OperationError {
  return new OperationError(
    `balancer.kind static has no API to ${what} ${target}: use drain.method health, so the host's health endpoint takes it out`,
  );
}
