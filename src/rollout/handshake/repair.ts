import type { HostAgent } from '../../agent-client/host-agent.js';
import type { HostConfig } from '../../config/types.js';
import type { HostStatus } from '../../protocol/results.js';
import { StepRecorder } from '../recorder.js';
import type { Bounds } from '../rotation.js';
import type { RolloutDeps } from '../types.js';
import { drainOwner } from '../drain-owner.js';
import { repairList } from './lists.js';
import { runList } from './runner.js';
import { hostContext } from './step.js';

/**
 * A drain marker with nobody holding the lock is what an interrupted or killed
 * rollout leaves behind — when a rollout wrote it (it names its release): the
 * fleet lease lets no other rollout run, so its writer is dead even if its
 * lease has not run out. An operator's marker (`deploy drain`) is left alone
 * while its lease runs (preflight refuses a plan that has that host,
 * drain-owner.ts); once its lease is over it is a leftover too. Before
 * starting, put such a host back the way the last rollout would have
 * (repairList): if its services verify, undrain it; if not and it has a
 * previous release, switch back to that first. A host that cannot be
 * repaired blocks the rollout with a message: it needs a person.
 * Returns the release the host runs afterwards.
 */
export async function repairLeftover(
  deps: RolloutDeps,
  agent: HostAgent,
  status: HostStatus,
  host: HostConfig,
  bounds: Bounds,
): Promise<string | null> {
  const marker = status.draining;
  if (!marker || status.lock.locked) return status.release;
  const owner = drainOwner(marker, deps.clock.now());
  if (owner === 'operator') return status.release;
  const whose =
    owner === 'rollout'
      ? `leftover drain marker of a rollout by ${marker.by} since ${marker.since} (release ${marker.release ?? '?'})`
      : `leftover drain marker of an operator (${marker.by}) since ${marker.since}, its lease over since ${marker.until}`;
  deps.log.emit({
    level: 'warn',
    event: 'repair',
    host: agent.host,
    message: `${whose}, running ${status.release ?? 'no release'}: repairing`,
  });
  const release = status.release ?? '';
  const ctx = hostContext({
    deps,
    host,
    agent,
    release,
    rollback: true,
    bounds,
    // a repair's steps are not a deploy's: logged, not recorded in the rollout's report
    rec: new StepRecorder(host.name, release, deps.who, deps.clock, deps.log, deps.clock.now()),
    leaseMs: 0,
    liveBefore: status.previous,
  });
  await runList(
    ctx,
    repairList(deps.config, bounds, status),
    { done: () => undefined },
    { record: false },
  );
  deps.log.emit({
    level: 'info',
    event: 'repair',
    host: agent.host,
    message: 'repaired: verified and undrained',
  });
  return ctx.progress.returned ? status.previous : status.release;
}
