import type { StaticBalancerConfig } from './config/entry.js';
import { UsageError } from '../../errors.js';
import type { BalancerKind } from '../kind.js';
import { StaticBalancer } from './adapter.js';

const noInfra = 'balancer.kind static has no API: there is nothing to apply';

export const staticKind: BalancerKind<StaticBalancerConfig> = {
  create: (entry) => Promise.resolve(new StaticBalancer(entry)),
  infra: () => Promise.reject(new UsageError(noInfra)),
  noInfra,
  noLive: 'balancer.kind static has no API, so there is nothing live to read',
};
