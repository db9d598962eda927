import type { TargetState } from '../balancer.js';
import {
  checkEnabled,
  drainMask,
  maintMask,
  OpState,
  type ServerStateRow,
} from './servers-state.js';
import type { StatRow } from './stat-csv.js';

/**
 * One server's state as the rollout needs it. The decision comes from
 * `show servers state` (operational state and admin bits: a DOWN server that
 * was also set to drain is still reported DOWN by `show stat`); the reason
 * comes from `show stat`, whose status and check columns a human can read.
 */
export function toTargetState(
  target: string,
  backend: string,
  row: ServerStateRow | undefined,
  stat: StatRow | undefined,
): TargetState {
  if (!row)
    return { target, state: 'unused', inRotation: false, reason: `not in backend ${backend}` };
  const check = describeCheck(stat);
  if (row.adminState & maintMask) {
    return {
      target,
      state: 'unused',
      inRotation: false,
      reason: `in maintenance (${stat?.status || 'MAINT'}); 'set server ${backend}/${target} state ready' takes it back`,
    };
  }
  if (row.adminState & drainMask) {
    return {
      target,
      state: 'draining',
      inRotation: false,
      reason: `set to drain through the runtime API${check ? `; check: ${check}` : ''}`,
    };
  }
  switch (row.opState) {
    case OpState.running: {
      const noCheck = !(row.checkState & checkEnabled);
      const transitional = stat && /^UP \d+\/\d+$/.test(stat.status);
      const reason = noCheck
        ? 'health checks are off for this server: haproxy will not take it out when it drains'
        : transitional
          ? `failing checks (${stat.status})${check ? `: ${check}` : ''}`
          : undefined;
      return { target, state: 'healthy', inRotation: true, ...(reason ? { reason } : {}) };
    }
    case OpState.starting:
      return { target, state: 'initial', inRotation: true, reason: 'warming up (slowstart)' };
    case OpState.stopping:
      return {
        target,
        state: 'draining',
        inRotation: false,
        reason: `soft-stopping (${stat?.status || 'NOLB'})${check ? `: ${check}` : ''}`,
      };
    default:
      return {
        target,
        state: 'unhealthy',
        inRotation: false,
        reason: `${stat?.status || 'DOWN'}${check ? `: ${check}` : ''}`,
      };
  }
}

/** "L7STS 503 (Layer7 wrong status)" */
function describeCheck(stat: StatRow | undefined): string {
  if (!stat || stat.checkStatus === '') return '';
  const code = stat.checkCode ? ` ${stat.checkCode}` : '';
  const desc = stat.checkDesc ? ` (${stat.checkDesc})` : '';
  return `${stat.checkStatus.replace(/^\* ?/, '')}${code}${desc}`;
}
