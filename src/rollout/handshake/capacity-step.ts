import type { HostConfig } from '../../config/types.js';
import { BlockedError, messageOf } from '../../errors.js';
import {
  countedOut,
  describeCountedOut,
  withCountedOut,
  type CapacityVerdict,
  type CountedOut,
  type HostRead,
} from '../capacity.js';
import { targets, waveCapacity } from '../preflight.js';
import type { HostContext, HostStep, StepVerdict } from './step.js';
import type { FleetReading } from './wave-read.js';

export interface CapacityStepOptions {
  /** `deploy drain --force`: a refusal is said, audited and overridden */
  readonly force?: boolean;
}

/**
 * The capacity guard again, right after this host's lock and before its
 * drain, from what is true now rather than at preflight: the balancer's
 * states, and enough other hosts' own word (their agents' status, read in
 * parallel, one call per host; the hosts of a wave share one read begun
 * after all their locks, wave-read.ts) —
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
      const shared = ctx.run.guard?.shared;
      const turn = await shared?.come(host.name, ctx.signal);
      const read = () => readOthers(ctx, wave);
      const fleet = shared && turn !== undefined ? shared.read(turn, read) : read();
      const reading = await fleet.catch((error: unknown) => {
        throw new BlockedError(
          `${host.name}: capacity guard with its lock held: the balancer did not answer (${messageOf(error)}); nothing was drained on it`,
        );
      });
      const { out, verdict } = judge(ctx, wave, reading);
      const counted = out.length > 0 ? `counted out: ${describeCountedOut(out)}; ` : '';
      const unread =
        reading.unread.length > 0
          ? `${reading.unread.length} other host(s) not asked, enough of those asked serve; `
          : '';
      const said = `${counted}${unread}${verdict.message}`;
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
 * lock: the hosts of a rollout's wave share one read (wave-read.ts); a drain
 * reads alone.
 */
async function readOthers(ctx: HostContext, wave: readonly HostConfig[]): Promise<FleetReading> {
  const { deps } = ctx.run;
  const inWave = new Set(wave.map((h) => h.name));
  const others = deps.config.hosts.filter((h) => !inWave.has(h.name));
  const first = others.slice(0, deps.config.rollout.minHealthy + FIRST_READ_MARGIN);
  const [reads, states] = await Promise.all([
    readStatuses(ctx, first),
    // its failure is the step's, said under each host that read it
    deps.balancer.states(targets(deps.config.hosts)),
  ]);
  const reading = { reads, states, unread: others.slice(first.length) };
  if (reading.unread.length === 0 || judge(ctx, wave, reading).verdict.ok) return reading;
  return { reads: [...reads, ...(await readStatuses(ctx, reading.unread))], states, unread: [] };
}

/**
 * The guard needs min_healthy other hosts that serve by their own word, not
 * every other host's: at 500 hosts a read of all of them for each wave was
 * most of the rollout's calls. The first read asks min_healthy and a few more
 * (some may be drained, locked or down), the rest only when those fall short.
 */
const FIRST_READ_MARGIN = 8;

interface Judged {
  readonly out: CountedOut[];
  readonly verdict: CapacityVerdict;
}

/**
 * The judgement of a reading the hosts of a wave share, made once for the
 * wave: the same reading and wave give the same verdict, and each judgement
 * copies every target's state (at 2 000 hosts, 200 hosts × 2 000 states a wave).
 */
const judged = new WeakMap<
  FleetReading,
  { readonly wave: readonly HostConfig[]; judged: Judged }
>();

/** The guard on a reading: a host not asked counts as out, like one whose status failed. */
function judge(ctx: HostContext, wave: readonly HostConfig[], reading: FleetReading): Judged {
  const known = judged.get(reading);
  if (known?.wave === wave) return known.judged;
  const fresh = judgeAfresh(ctx, wave, reading);
  judged.set(reading, { wave, judged: fresh });
  return fresh;
}

function judgeAfresh(
  ctx: HostContext,
  wave: readonly HostConfig[],
  { reads, states, unread }: FleetReading,
): Judged {
  const out = countedOut(reads);
  const notAsked = unread.map((h) => ({ host: h.name, target: h.target, why: 'not asked' }));
  const verdict = waveCapacity(
    ctx.run.deps,
    wave,
    withCountedOut(states, [...out, ...notAsked]),
    ctx.run.guard?.failOpen ?? new Map(),
  );
  return { out, verdict };
}

function readStatuses(ctx: HostContext, hosts: readonly HostConfig[]): Promise<HostRead[]> {
  const { deps } = ctx.run;
  const reader = ctx.run.guard?.reader ?? ((h: HostConfig) => deps.agent(h));
  return Promise.all(
    hosts.map(async (h): Promise<HostRead> => {
      try {
        const agent = await reader(h);
        return { host: h.name, target: h.target, status: await agent.run('status', {}) };
      } catch (error) {
        return { host: h.name, target: h.target, error: messageOf(error) };
      }
    }),
  );
}
