import type { MaxUnreachable, RolloutConfig } from '../config/types.js';
import { hostError, isNetworkUnreachable } from '../errors.js';
import type { Plan } from './plan.js';
import type { HostProblem } from './preflight-lines.js';

/** A host of the plan the network did not reach in preflight, left out (rollout.unreachable: skip). */
export interface SkippedHost {
  readonly host: string;
  readonly reason: string;
}

/** A host preflight could not use, with what it threw. */
export interface HostFailure {
  readonly host: string;
  readonly error: unknown;
}

export interface ReachVerdict {
  readonly skipped: readonly SkippedHost[];
  /** what refuses the rollout, one line per host (empty: it goes on) */
  readonly problems: readonly HostProblem[];
  /** said after the host lines when the allowance refused them */
  readonly note?: string;
}

/** How many hosts of a plan of `planned` may be left out: a count, or a percentage rounded down. */
export function allowedUnreachable(max: MaxUnreachable, planned: number): number {
  return max.kind === 'count' ? max.count : Math.floor((max.percent * planned) / 100);
}

/**
 * The policy, pure. `fail` (the default) refuses for any host. `skip` leaves
 * out only hosts the network did not carry us to (never a changed host key,
 * a refused login or another agent), and only within max_unreachable and
 * while at least one host is left to deploy; anything else refuses as `fail`
 * would, every host named.
 */
export function judgeReach(
  rollout: Pick<RolloutConfig, 'unreachable' | 'maxUnreachable'>,
  planned: number,
  failures: readonly HostFailure[],
): ReachVerdict {
  const problem = (f: HostFailure): HostProblem => ({
    host: f.host,
    reason: hostError(f.host, f.error),
  });
  if (failures.length === 0) return { skipped: [], problems: [] };
  if (rollout.unreachable === 'fail') return { skipped: [], problems: failures.map(problem) };
  const down = failures.filter((f) => isNetworkUnreachable(f.error));
  const allowed = allowedUnreachable(rollout.maxUnreachable, planned);
  if (down.length < failures.length) return { skipped: [], problems: failures.map(problem) };
  if (down.length >= planned)
    return {
      skipped: [],
      problems: failures.map(problem),
      note: 'rollout.unreachable: skip: no host of the plan is reachable; nothing was touched',
    };
  if (down.length > allowed)
    return {
      skipped: [],
      problems: failures.map(problem),
      note: `rollout.max_unreachable allows ${allowed} of ${planned} hosts to be skipped, ${down.length} are unreachable; nothing was touched`,
    };
  return { skipped: down.map(problem), problems: [] };
}

/** The plan without the skipped hosts; a wave left empty goes. */
export function withoutHosts(plan: Plan, skipped: readonly SkippedHost[]): Plan {
  if (skipped.length === 0) return plan;
  const out = new Set(skipped.map((s) => s.host));
  const waves = plan.waves.map((w) => w.filter((h) => !out.has(h.name))).filter((w) => w.length);
  return { ...plan, waves };
}

/** The line each skipped host gets in the summary, the log and the step summary. */
export function skippedLine(s: SkippedHost, release: string): string {
  return `${s.host} unreachable: skipped, not on ${release} (${s.reason})`;
}
