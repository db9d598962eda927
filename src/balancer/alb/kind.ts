import type { AlbBalancerConfig } from '../../config/types.js';
import type { BalancerKind } from '../kind.js';

export const alb: BalancerKind<AlbBalancerConfig> = {
  async create(entry, deps) {
    const { createAlbBalancer } = await import('./adapter.js');
    return createAlbBalancer(entry, deps);
  },
  async infra(entry, desired, dryRun, deps) {
    const [{ createAlbBalancer }, { applyAlbInfra }] = await Promise.all([
      import('./adapter.js'),
      import('./infra.js'),
    ]);
    const balancer = await createAlbBalancer(entry, deps);
    try {
      return await applyAlbInfra(balancer, desired, dryRun);
    } finally {
      await balancer.close();
    }
  },
};
