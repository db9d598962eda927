import type { Balancer } from '../balancer/balancer.js';
import type { HostConfig } from '../config/types.js';
import type { StepRecorder } from './recorder.js';

/**
 * Each balancer reload seen while the rollout runs is a line in the audit of
 * every host that holds its lock at that moment (the hosts mid-handshake, the
 * ones whose drain a reload could undo), beside the warning on the log.
 * Returns the unsubscribe.
 */
export function auditReloads(
  balancer: Balancer,
  hosts: readonly HostConfig[],
  recorder: (host: HostConfig) => StepRecorder,
): () => void {
  return (
    balancer.onReload?.((reload) => {
      const detail = reload.balancer ? `${reload.balancer}: ${reload.message}` : reload.message;
      for (const host of hosts) recorder(host).note('balancer-reload', detail);
    }) ?? (() => undefined)
  );
}
