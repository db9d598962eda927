import { randomUUID } from 'node:crypto';
import type { LeaseHolder, LeaseRequest } from '../../protocol/lease.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The CI job that runs this deploy: GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID. */
export function ciJobUrl(env: Env): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env;
  if (!server || !repo || !run) return undefined;
  return `${server.replace(/\/+$/, '')}/${repo}/actions/runs/${run}`;
}

/**
 * A holder proven gone: it ran on this machine (`host`, as this deployer's
 * own lease request names it) and its pid no longer exists. Anything else, a
 * pid reused by another process included, is not proven gone, and its lease
 * is left to expire.
 */
export function holderGone(holder: LeaseHolder, host: string, alive = pidAlive): boolean {
  return holder.host === host && !alive(holder.pid);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** What this deployer asks the fleet for: a fresh id, who it is, what it runs. */
export function leaseRequest(options: {
  readonly command: string;
  readonly release?: string;
  readonly env: Env;
  /** `alice@laptop`, as whoAmI says it */
  readonly who: string;
  readonly pid: number;
}): LeaseRequest {
  const at = options.who.lastIndexOf('@');
  const ci = ciJobUrl(options.env);
  const holder: LeaseHolder = {
    user: at > 0 ? options.who.slice(0, at) : options.who,
    host: at > 0 ? options.who.slice(at + 1) : 'unknown',
    pid: options.pid,
    ...(ci ? { ci } : {}),
  };
  return {
    id: randomUUID(),
    holder,
    command: options.command,
    ...(options.release ? { release: options.release } : {}),
  };
}
