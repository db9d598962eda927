import type { StatRow } from '../haproxy.js';

/** One target of the lab's group, as the endpoint remembers it. */
export interface Registration {
  readonly id: string;
  readonly port: number;
  /**
   * HAProxy's server for this target: the host's address on the port it
   * listens on. Absent for a registration on another port, where nothing in
   * the lab listens: its checks fail, as they would on AWS.
   */
  readonly server?: string;
  registered: boolean;
  /** when RegisterTargets last ran (or the lab started) */
  registeredAt: number;
  /** set by DeregisterTargets: draining until this + deregistration delay */
  deregisteredAt?: number;
  /** HAProxy has reported the server UP since the registration */
  seenUp: boolean;
  /** the deregistration completed: HAProxy has the server in maint */
  maint?: boolean;
  /** RegisterTargets is still telling HAProxy: the server's status is not the target's yet */
  settling?: boolean;
  /**
   * Counts each start and end of settling: a stat read that began before a
   * change of it may hold a status from between RegisterTargets' two commands
   */
  settles?: number;
}

/** AWS completes a deregistration early when nothing is in flight; the lab waits this long at least */
export const MIN_DRAINING_MS = 1000;

export interface GroupChecks {
  readonly intervalMs: number;
  readonly healthy: number;
  readonly unhealthy: number;
}

export interface ReportedHealth {
  readonly State: 'initial' | 'healthy' | 'unhealthy' | 'draining' | 'unused';
  readonly Reason?: string;
  readonly Description?: string;
}

/**
 * An ALB's view of a target from HAProxy's own check results: UP is
 * `healthy`; until the first UP after a registration it is `initial` (for as
 * long as an ALB would keep it there); DOWN is `unhealthy`, with the reason
 * HAProxy's last check gives. `row` is undefined while the registration is
 * still settling, or when it was read from before the settling ended.
 */
export function targetHealth(
  reg: Registration,
  row: StatRow | undefined,
  checks: GroupChecks,
  deregistrationDelayMs: number,
  now: number,
): ReportedHealth {
  if (!reg.registered) {
    const since = now - (reg.deregisteredAt ?? -Infinity);
    const idle = Number(row?.scur ?? '0') === 0 && since >= MIN_DRAINING_MS;
    if (!reg.maint && since < deregistrationDelayMs && !idle)
      return {
        State: 'draining',
        Reason: 'Target.DeregistrationInProgress',
        Description: 'Target deregistration is in progress',
      };
    return {
      State: 'unused',
      Reason: 'Target.NotRegistered',
      Description: 'Target is not registered to the target group',
    };
  }
  const status = row?.status ?? '';
  if (/^UP/.test(status) && checked(row)) {
    reg.seenUp = true;
    return { State: 'healthy' };
  }
  const initialFor = checks.intervalMs * (checks.healthy + checks.unhealthy);
  if (!reg.seenUp && now - reg.registeredAt < initialFor)
    return {
      State: 'initial',
      Reason: 'Elb.RegistrationInProgress',
      Description: 'Target registration is in progress',
    };
  return { State: 'unhealthy', ...failure(row) };
}

/**
 * HAProxy starts a server UP before its first check has run (`check_status`
 * INI, "initializing"): traffic goes to it, but nothing has checked it. AWS
 * never reports such a target healthy: "initial: The load balancer is in the
 * process of registering the target or performing the initial health checks
 * on the target" (Elastic Load Balancing API Reference, TargetHealth). A lab
 * whose first rollout came within a check interval of HAProxy's start saw one
 * target `healthy` and another `initial`, and the capacity guard refused.
 */
function checked(row: StatRow | undefined): boolean {
  return !/^\*?\s*INI/.test(row?.check_status ?? '');
}

function failure(row: StatRow | undefined): { Reason: string; Description: string } {
  const check = row?.check_status ?? '';
  if (check === 'L7STS')
    return {
      Reason: 'Target.ResponseCodeMismatch',
      Description: `Health checks failed with these codes: [${row?.check_code ?? ''}]`,
    };
  if (/TOUT$/.test(check)) return { Reason: 'Target.Timeout', Description: 'Request timed out' };
  return { Reason: 'Target.FailedHealthChecks', Description: 'Health checks failed' };
}
