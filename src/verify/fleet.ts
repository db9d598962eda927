import type { Balancer, TargetState } from '../balancer/balancer.js';
import type { Config, HostConfig } from '../config/types.js';
import { HandoffError, HostUnreachableError, hostError } from '../errors.js';
import { mapLimit } from '../map-limit.js';
import { compareReleaseIds } from '../release-id.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import type { VerifyReport } from '../protocol/results.js';

export interface HostVerification {
  readonly host: string;
  readonly target: string;
  /** false: could not be reached or answered garbage (exit 3) */
  readonly reachable: boolean;
  readonly report?: VerifyReport;
  readonly error?: string;
  readonly balancer?: TargetState;
}

export interface FleetVerification {
  readonly ok: boolean;
  readonly unreachable: readonly string[];
  readonly hosts: readonly HostVerification[];
  /** the release most of the hosts answer with (x-release), when any names one */
  readonly release?: string;
  /** hosts whose services answer another release: one that missed a rollout (it was down) */
  readonly otherRelease: readonly { readonly host: string; readonly release: string }[];
}

/** How long `verify` waits for a streak: enough rounds for verify_successes passes, not verify_timeout. */
export function verifyBudget(config: Config): number {
  const slowest = Math.max(
    0,
    ...config.services.map((s) => ('timeout' in s.check ? s.check.timeout : 0)),
  );
  return config.rollout.verifySuccesses * (slowest + 1000) + 2000;
}

/**
 * Every service on every host, through the agent, plus the balancer's view of
 * each target. Hosts are checked concurrently (as many as ssh.max_connections), so
 * thirty hosts take about as long as one.
 */
export async function verifyFleet(
  config: Config,
  hosts: readonly HostConfig[],
  agentOf: (h: HostConfig) => Promise<HostAgent>,
  balancer: Balancer | undefined,
  // the connections bound it already: 16 at a time made 500 hosts 32 rounds of checks
  concurrency = config.ssh.maxConnections,
): Promise<FleetVerification> {
  const states = balancer
    ? await balancer.states(hosts.map((h) => h.target))
    : new Map<string, TargetState>();
  const results = await mapLimit(hosts, concurrency, async (host): Promise<HostVerification> => {
    const target = states.get(host.target);
    const base = { host: host.name, target: host.target, ...(target ? { balancer: target } : {}) };
    try {
      const agent = await agentOf(host);
      const report = await agent.run('verify', {
        successes: config.rollout.verifySuccesses,
        timeoutMs: verifyBudget(config),
        allowDraining: false,
      });
      return { ...base, reachable: true, report };
    } catch (error) {
      const message = hostError(host.name, error);
      const unreachable =
        error instanceof HostUnreachableError ||
        (error instanceof HandoffError && error.exitCode === 3);
      return { ...base, reachable: !unreachable, error: message };
    }
  });
  const unreachable = results.filter((r) => !r.reachable).map((r) => r.host);
  const { release, otherRelease } = releasesOf(results);
  // several balancers: a host one of them still has out is not verified either (mixed)
  const ok =
    otherRelease.length === 0 &&
    results.every(
      (r) =>
        r.reachable &&
        r.report?.ok === true &&
        r.balancer?.inRotation !== false &&
        r.balancer?.state !== 'mixed',
    );
  return { ok, unreachable, hosts: results, ...(release && { release }), otherRelease };
}

/** The release a host's services answer with: theirs when they agree, `a, b` when they do not. */
export function hostRelease(h: HostVerification): string | undefined {
  const named = new Set((h.report?.services ?? []).flatMap((s) => (s.release ? [s.release] : [])));
  return named.size === 0 ? undefined : [...named].sort(compareReleaseIds).join(', ');
}

/**
 * The fleet's release, the one most hosts answer with (a tie: the newest),
 * and the hosts that answer another: a host that was down during a rollout
 * (rollout.unreachable: skip) and came back on the release before.
 */
export function releasesOf(hosts: readonly HostVerification[]): {
  release?: string;
  otherRelease: { host: string; release: string }[];
} {
  const count = new Map<string, number>();
  for (const h of hosts) {
    const r = hostRelease(h);
    if (r !== undefined) count.set(r, (count.get(r) ?? 0) + 1);
  }
  const release = [...count].sort(([a, n], [b, m]) => m - n || compareReleaseIds(b, a))[0]?.[0];
  if (release === undefined) return { otherRelease: [] };
  const otherRelease = hosts.flatMap((h) => {
    const r = hostRelease(h);
    return r !== undefined && r !== release ? [{ host: h.host, release: r }] : [];
  });
  return { release, otherRelease };
}
