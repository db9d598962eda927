import type { HostConfig } from '../../config/types.js';
import { BlockedError, messageOf } from '../../errors.js';
import { countedOut, describeCountedOut, withCountedOut, type HostRead } from '../capacity.js';
import { targets, waveCapacity } from '../preflight.js';
import type { FleetReading, HostContext, HostStep, StepVerdict } from './step.js';

export interface CapacityStepOptions {
  /** `deploy drain --force`: a refusal is said, audited and overridden */
  readonly force?: boolean;
}

/**
 * The capacity guard again, right after this host's lock and before its
 * drain, from what is true now rather than at preflight: the balancer's
 * states, and every other host's own word (its agent's status, read in
 * parallel, one call per host; the hosts of a wave share one read, below) —
 * a drain marker or a lock holder counts that host out even while the
 * balancer still has it in rotation (for up to interval × unhealthy_threshold
 * after a drain). The hosts of this host's wave go out with it, so they are
 * not asked. A refusal fails the host before
 * anything changed on it: the runner releases the lock, exit 3.
 */
export function capacityStep(options: CapacityStepOptions = {}): HostStep {
  return {
    name: 'capacity',
    async run(ctx): Promise<StepVerdict> {
      const { deps, host } = ctx.run;
      const wave = ctx.run.guard?.wave ?? [host];
      const { reads, states } = await readFleet(ctx, wave).catch((error: unknown) => {
        throw new BlockedError(
          `${host.name}: capacity guard with its lock held: the balancer did not answer (${messageOf(error)}); nothing was drained on it`,
        );
      });
      const out = countedOut(reads);
      const verdict = waveCapacity(
        deps,
        wave,
        withCountedOut(states, out),
        ctx.run.guard?.failOpen ?? new Map(),
      );
      const counted = out.length > 0 ? `counted out: ${describeCountedOut(out)}; ` : '';
      const said = `${counted}${verdict.message}`;
      if (verdict.ok) return { detail: said };
      if (options.force) {
        deps.log.emit({
          level: 'warn',
          event: 'capacity',
          host: host.name,
          message: `capacity guard overridden (--force): ${said}`,
        });
        return { detail: `overridden (--force): ${said}` };
      }
      return {
        ok: false,
        detail: said,
        error: new BlockedError(
          `${host.name}: capacity guard with its lock held: ${said}; nothing was drained on it`,
        ),
      };
    },
  };
}

/**
 * The other hosts' status and the balancer's states, read after this host's
 * lock. The hosts of a wave lock about at once: one whose lock came before a
 * read of the wave's started takes that read (it sees everything up to this
 * lock and after). One that locked while that read was under way takes the
 * read that starts as it ends, with every other host that came meanwhile: at
 * 500 hosts the locks of a wave spread over more than one read, and a read
 * for each latecomer made the guard the rollout's largest cost. A wave costs
 * a few status calls per other host, not one per host of the wave.
 */
function readFleet(ctx: HostContext, wave: readonly HostConfig[]): Promise<FleetReading> {
  const shared = ctx.run.guard?.shared;
  if (!shared) return readOthers(ctx, wave);
  const lockedAt = ctx.progress.lockedAt;
  const latest = shared.latest;
  if (latest && lockedAt !== undefined && latest.at > lockedAt) return latest.reading;
  const start = (): Promise<FleetReading> => {
    const at = ctx.run.deps.clock.now();
    const reading = readOthers(ctx, wave);
    shared.latest = { at, reading };
    return reading;
  };
  if (!latest) return start();
  shared.next ??= latest.reading
    .catch(() => undefined)
    .then(() => {
      shared.next = undefined;
      return start();
    });
  return shared.next;
}

async function readOthers(ctx: HostContext, wave: readonly HostConfig[]): Promise<FleetReading> {
  const { deps } = ctx.run;
  const reader = ctx.run.guard?.reader ?? ((h: HostConfig) => deps.agent(h));
  const inWave = new Set(wave.map((h) => h.name));
  const others = deps.config.hosts.filter((h) => !inWave.has(h.name));
  const [reads, states] = await Promise.all([
    Promise.all(
      others.map(async (h): Promise<HostRead> => {
        try {
          const agent = await reader(h);
          return { host: h.name, target: h.target, status: await agent.status() };
        } catch (error) {
          return { host: h.name, target: h.target, error: messageOf(error) };
        }
      }),
    ),
    // its failure is the step's, said under each host that read it
    deps.balancer.states(targets(deps.config.hosts)),
  ]);
  return { reads, states };
}
