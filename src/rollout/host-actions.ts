import { timerMs } from '../config/kit/duration.js';
import type { HostConfig } from '../config/types.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import type { StopReport, VerifyReport } from '../protocol/results.js';
import type { RolloutDeps } from './types.js';

/** Drain and undrain by the configured method; the marker is written either way. */
export interface HostActions {
  drain(): Promise<void>;
  undrain(): Promise<void>;
  /**
   * After a drain that failed: true when none of it happened, i.e. the
   * balancer refused the deregister (which comes before the marker) and
   * still has the target in rotation. Then there is nothing to undrain, and
   * the host is not left drained.
   */
  nothingDrained(): Promise<boolean>;
}

export function hostActions(
  deps: RolloutDeps,
  host: HostConfig,
  agent: HostAgent,
  release: string,
  leaseMs: number,
): HostActions {
  const deregister = deps.config.drain.method === 'deregister';
  let refused = false;
  return {
    async drain() {
      refused = false;
      if (deregister) {
        // the balancer first: a deregister it refuses (AccessDenied) leaves no marker behind
        await deps.balancer.deregister(host.target).catch((e: unknown) => {
          refused = true;
          throw e;
        });
      }
      // the marker also tells the watchdog and an operator that this is planned
      // an operator's drain has no release: '' is no release id, and the agent refuses it
      await agent.run('drain', { by: deps.who, leaseMs, ...(release ? { release } : {}) });
    },
    async nothingDrained() {
      if (!refused) return false;
      // a refusal after a retried call may have been applied by an earlier attempt: ask
      const state = await deps.balancer
        .states([host.target])
        .then((m) => m.get(host.target))
        .catch(() => undefined);
      return state?.inRotation === true;
    },
    async undrain() {
      // the marker goes whatever the balancer says: a register refused (AccessDenied
      // after a deregister that was refused too) must not leave the health endpoint
      // answering 503, which takes the host out by the health checks instead
      const refused = deregister
        ? await deps.balancer.register(host.target).then(
            () => undefined,
            (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
          )
        : undefined;
      await agent.run('undrain', {});
      if (refused) throw refused;
    },
  };
}

/** `gateway ✗ status-500, worker ✓` — what an operator needs, never a response body. */
export function summarizeVerify(report: VerifyReport): string {
  return report.services
    .map(
      (s) =>
        `${s.name} ${s.ok ? '✓' : '✗'}${s.ok ? '' : ` ${s.code}`}${s.detail ? ` (${s.detail})` : ''}${s.draining ? ' (draining)' : ''}`,
    )
    .join(', ');
}

/** `web: stop exited 0 but 127.0.0.1:8080 still accepts connections; …` — empty when every stop is proven. */
export function stopProblems(report: StopReport): string {
  return report.services
    .filter((p) => !p.proven)
    .map((p) => `${p.service}: stop exited 0 but ${p.detail}`)
    .join('; ');
}

/** The stop step's line in the timeline: what was adopted, what was not proven. */
export function describeStop(report: StopReport): { ok: boolean; detail?: string } {
  const adopted = report.adopted.length ? `adopted ${report.adopted.join(', ')}` : '';
  const detail = [adopted, report.proven ? '' : stopProblems(report)].filter(Boolean).join('; ');
  return { ok: report.proven, ...(detail ? { detail } : {}) };
}

/** How long the drain marker is good for if the orchestrator dies: the whole worst-case window, twice. */
export function drainLease(deps: RolloutDeps, awaitOut: number, awaitIn: number): number {
  const { drain, rollout } = deps.config;
  // a lease the agent refuses (past a timer's reach) would fail the drain: clamp it
  return timerMs(
    2 * (awaitOut + drain.overlap + drain.stopTimeout + rollout.verifyTimeout * 2 + awaitIn),
  );
}
