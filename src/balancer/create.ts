import type { Config } from '../config/types.js';
import type { Balancer, BalancerDeps } from './balancer.js';

/**
 * The adapter for config.balancer.kind. Each is imported on demand: the
 * watchdog never talks to a balancer and must not pay for loading the AWS SDK.
 */
export async function createBalancer(config: Config, deps: BalancerDeps): Promise<Balancer> {
  const balancer = config.balancer;
  switch (balancer.kind) {
    case 'alb': {
      const { createAlbBalancer } = await import('./alb.js');
      return createAlbBalancer(balancer, deps);
    }
    case 'haproxy': {
      const { HaproxyBalancer } = await import('./haproxy/adapter.js');
      return new HaproxyBalancer(balancer);
    }
    case 'static': {
      const { StaticBalancer } = await import('./static.js');
      return new StaticBalancer(balancer);
    }
  }
}
