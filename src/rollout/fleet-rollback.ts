import type { FailOpenMinimum } from '../balancer/fail-open.js';
import type { HostConfig } from '../config/types.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import { deployHost } from './handshake/deploy-host.js';
import { WaveRead } from './handshake/wave-read.js';
import type { Bounds } from './rotation.js';
import { StepRecorder } from './recorder.js';
import type { FleetRollbackResult, HostOutcome, RolloutDeps } from './types.js';

export interface FleetRollbackPlan {
  /** latest wave first: each host with the release it goes back to */
  readonly waves: readonly (readonly { host: HostConfig; release: string }[])[];
  readonly kept: readonly { readonly host: string; readonly reason: string }[];
}

/**
 * Pure: after a failed rollout of `release`, which hosts go back and to what.
 * Only hosts the rollout deployed go back (a failed host already rolled itself
 * back or was left for an operator), the latest wave first, each to the
 * release it ran before; a host that ran none stays.
 */
export function planFleetRollback(
  release: string,
  waves: readonly (readonly HostConfig[])[],
  outcomes: readonly HostOutcome[],
  liveBefore: ReadonlyMap<string, string | null>,
): FleetRollbackPlan {
  const deployed = new Set(outcomes.filter((o) => o.result === 'deployed').map((o) => o.host));
  const kept: { host: string; reason: string }[] = [];
  const back: { host: HostConfig; release: string }[][] = [];
  for (const wave of [...waves].reverse()) {
    const going: { host: HostConfig; release: string }[] = [];
    for (const host of wave.filter((h) => deployed.has(h.name))) {
      const before = liveBefore.get(host.name) ?? null;
      if (before === null) kept.push({ host: host.name, reason: 'ran no release before' });
      else if (before === release) kept.push({ host: host.name, reason: `ran ${release} before` });
      else going.push({ host, release: before });
    }
    if (going.length > 0) back.push(going);
  }
  return { waves: back, kept };
}

export interface FleetRollbackRun {
  readonly deps: RolloutDeps;
  readonly plan: FleetRollbackPlan;
  /** the release the rollout failed with: what these hosts run now */
  readonly release: string;
  readonly rollback: boolean;
  readonly bounds: Bounds;
  readonly leaseMs: number;
  readonly startedAt: number;
  agentOf(host: HostConfig): HostAgent;
  /** a host's agent for a read, of the plan or not (WaveRun.reader) */
  readonly reader: (host: HostConfig) => Promise<HostAgent>;
  /** the capacity guard before a wave drains: why not, or undefined */
  guard(wave: readonly HostConfig[]): Promise<string | undefined>;
  /** each balancer's fail-open minimum (unhealthy-state routing), which each host's guard keeps too */
  readonly failOpen: ReadonlyMap<string, FailOpenMinimum>;
}

/**
 * The same handshake as the rollout, wave by wave, each host back to its
 * release. A wave that fails or is refused ends it: the hosts not reached stay
 * on the new release and are reported as kept.
 */
export async function runFleetRollback(run: FleetRollbackRun): Promise<FleetRollbackResult> {
  const { deps } = run;
  const hosts: HostOutcome[] = [];
  const kept = [...run.plan.kept];
  let blocked: string | undefined;
  let stopped = false;
  for (const wave of run.plan.waves) {
    const names = wave.map((w) => w.host);
    if (!stopped && !deps.signal.aborted) blocked = await run.guard(names);
    if (stopped || blocked || deps.signal.aborted) {
      kept.push(...wave.map((w) => ({ host: w.host.name, reason: 'the rollback stopped first' })));
      stopped = true;
      continue;
    }
    const guard = {
      wave: names,
      failOpen: run.failOpen,
      shared: new WaveRead(names),
      reader: run.reader,
    };
    const results = await Promise.all(
      wave.map(async ({ host, release }) => {
        const agent = run.agentOf(host);
        await agent.openSession?.().catch(() => undefined);
        return deployHost({
          deps,
          host,
          agent,
          release,
          rollback: run.rollback,
          bounds: run.bounds,
          rec: new StepRecorder(host.name, release, deps.who, deps.clock, deps.log, run.startedAt),
          leaseMs: run.leaseMs,
          liveBefore: run.release,
          returning: true,
          guard,
        });
      }),
    );
    hosts.push(...results);
    stopped = results.some((r) => r.result !== 'deployed');
  }
  return { hosts, kept, ...(blocked ? { blocked } : {}) };
}
