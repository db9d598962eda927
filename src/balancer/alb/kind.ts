import type { AlbBalancerConfig } from './config/entry.js';
import type { BalancerKind } from '../kind.js';
import { albInvariants } from './invariants.js';
import { parseTarget } from './targets.js';
import { albMetricsReceipt } from './receipt/cloudwatch-receipt.js';

export const alb: BalancerKind<AlbBalancerConfig> = {
  async create(entry, deps) {
    const { createAlbBalancer } = await import('./adapter.js');
    return createAlbBalancer(entry, deps);
  },
  invariants: albInvariants,
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
  // `10.0.1.11:8080` or `i-0abc:8443`, as the adapter reads it
  targetPort(target) {
    const { id, port } = parseTarget(target);
    return port === undefined ? undefined : { id, port };
  },
  async liveWarnings(config, checked) {
    const { liveTypes, rangeWarnings } = await import('./warnings.js');
    return rangeWarnings(config, checked, await liveTypes(checked));
  },
  metricsReceipt: albMetricsReceipt,
};
