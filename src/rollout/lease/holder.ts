import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { processStartTime } from '../../host/process-start.js';
import type { HolderProcess, LeaseHolder, LeaseRequest } from '../../protocol/lease.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The CI job that runs this deploy: GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID. */
export function ciJobUrl(env: Env): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: run } = env;
  if (!server || !repo || !run) return undefined;
  return `${server.replace(/\/+$/, '')}/${repo}/actions/runs/${run}`;
}

/** What a taker can say of a holder: proven gone, or why it is left to expire. */
export type HolderVerdict =
  { readonly gone: true; readonly why: string } | { readonly gone: false; readonly why?: string };

/**
 * A holder proven gone: it ran on this machine since its last boot, in this
 * PID namespace (both as recorded in its lease), and its pid is no process
 * now or another process than the one that took the lease (another start
 * time). A shared host name proves nothing (two CI containers on one VM, two
 * `hostNetwork` pods, two laptops called `ubuntu`): anything short of all
 * three is not proven gone, and its lease is left to expire.
 */
export function holderGone(
  holder: LeaseHolder,
  self: LeaseHolder,
  startOf: (pid: number) => string | undefined = processStartTime,
): HolderVerdict {
  if (holder.host !== self.host) return { gone: false };
  const was = holder.process;
  const here = self.process;
  if (!was || !here)
    return {
      gone: false,
      why: 'it shares this host name, but its lease does not say which process it is',
    };
  if (was.boot !== here.boot)
    return { gone: false, why: 'it shares this host name, but not this machine (another boot id)' };
  if (was.pidns !== here.pidns)
    return { gone: false, why: 'it shares this machine, but not this PID namespace' };
  const now = startOf(holder.pid);
  if (now === was.start) return { gone: false };
  return {
    gone: true,
    why: `that process is gone from this machine and PID namespace (pid ${holder.pid} ${now === undefined ? 'does not exist' : 'is another process now'})`,
  };
}

/**
 * This process, as `holderGone` needs to find it again: undefined where
 * there is no /proc, or where /proc is not this PID namespace's (its
 * `self` is another pid than ours), so a lease it takes is left to expire.
 */
export function thisProcess(pid: number): HolderProcess | undefined {
  try {
    const self = readFileSync('/proc/self/stat', 'utf8');
    if (Number.parseInt(self, 10) !== pid) return undefined;
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidns = readlinkSync('/proc/self/ns/pid');
    const start = processStartTime(pid);
    return boot && pidns && start ? { boot, pidns, start } : undefined;
  } catch {
    return undefined;
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
  /** this process, as `thisProcess` reads it */
  readonly process?: HolderProcess;
}): LeaseRequest {
  const at = options.who.lastIndexOf('@');
  const ci = ciJobUrl(options.env);
  const holder: LeaseHolder = {
    user: at > 0 ? options.who.slice(0, at) : options.who,
    host: at > 0 ? options.who.slice(at + 1) : 'unknown',
    pid: options.pid,
    ...(ci ? { ci } : {}),
    ...(options.process ? { process: options.process } : {}),
  };
  return {
    id: randomUUID(),
    holder,
    command: options.command,
    ...(options.release ? { release: options.release } : {}),
  };
}
