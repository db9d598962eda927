import { BlockedError } from '../errors.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import type { HostStatus } from '../host/agent/types.js';
import { stopProblems, summarizeVerify } from './host-actions.js';
import { awaitRotation } from './rotation.js';
import type { Bounds } from './rotation.js';
import type { RolloutDeps } from './types.js';

/**
 * A drain marker with nobody holding the lock is what an interrupted or killed
 * rollout leaves behind. Before starting, put such a host back the way the
 * last rollout would have: if its services verify, undrain it; if not and it
 * has a previous release, switch back to that first. A host that cannot be
 * repaired blocks the rollout with a message: it needs a person.
 */
export async function repairLeftover(
  deps: RolloutDeps,
  agent: HostAgent,
  status: HostStatus,
  target: string,
  bounds: Bounds,
): Promise<string | null> {
  const marker = status.draining;
  if (!marker || status.lock.locked) return status.release;
  const { log, config, balancer, clock, signal } = deps;
  log.emit({
    level: 'warn',
    event: 'repair',
    host: agent.host,
    message: `leftover drain marker by ${marker.by} since ${marker.since}${marker.release ? ` (release ${marker.release})` : ''}, running ${status.release ?? 'no release'}: repairing`,
  });
  const lock = await agent.holdLock(
    'repair',
    `repairing after an interrupted rollout, by ${deps.who}`,
  );
  try {
    const verifyOptions = {
      successes: 1,
      timeoutMs: config.rollout.verifyTimeout,
      allowDraining: true,
      // what it repairs to may be a release from before x-release; another id still fails
      releaseOptional: true,
    };
    let verified = await agent.verify(verifyOptions);
    const switchedByRollout = marker.release !== undefined && marker.release === status.release;
    let live = status.release;
    if (
      !verified.ok &&
      switchedByRollout &&
      status.previous &&
      status.previous !== status.release
    ) {
      log.emit({
        level: 'warn',
        event: 'repair',
        host: agent.host,
        message: `${status.release ?? '?'} does not verify: switching back to ${status.previous}`,
      });
      const stopped = await agent.stop(status.previous);
      if (!stopped.proven)
        throw new BlockedError(
          `${agent.host} was left drained and its stop is not proven (${stopProblems(stopped)}); stop it by hand, then run the rollout again (it repairs the host first)`,
        );
      await agent.switchTo(status.previous);
      live = status.previous;
      await agent.start();
      verified = await agent.verify(verifyOptions);
    }
    if (!verified.ok) {
      throw new BlockedError(
        `${agent.host} was left drained and does not verify (${summarizeVerify(verified)}); fix it, then 'deploy undrain ${agent.host}'`,
      );
    }
    if (config.drain.method === 'deregister') await balancer.register(target);
    await agent.undrain();
    await awaitRotation(balancer, target, true, bounds.awaitIn, bounds.interval, clock, signal);
    log.emit({
      level: 'info',
      event: 'repair',
      host: agent.host,
      message: 'repaired: verified and undrained',
    });
    return live;
  } finally {
    await lock.release();
  }
}
