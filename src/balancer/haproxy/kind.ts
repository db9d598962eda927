import type { HaproxyBalancerConfig } from './config/entry.js';
import type { BalancerKind } from '../kind.js';
import { haproxyInvariants } from './invariants.js';
import { haproxyReceiptSource } from './receipt/entry-source.js';

export const haproxy: BalancerKind<HaproxyBalancerConfig> = {
  async create(entry, deps) {
    const { HaproxyBalancer } = await import('./adapter.js');
    return new HaproxyBalancer(entry, {}, deps);
  },
  invariants: haproxyInvariants,
  async infra(entry, desired, dryRun, deps) {
    const { haproxyInfra } = await import('./infra.js');
    return haproxyInfra(entry, desired, dryRun, deps);
  },
  async liveWarnings(config, checked) {
    const { haproxyWarnings } = await import('./warnings.js');
    return haproxyWarnings(config, checked);
  },
  receiptSource: haproxyReceiptSource,
};
