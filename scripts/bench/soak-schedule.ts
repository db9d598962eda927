/** Which balancer a rollout's deploy.yml names: lb-a alone, both HAProxies, or the ELBv2 endpoint (lb-a's group). */
export type SoakBalancer = 'haproxy' | 'haproxy-pair' | 'alb';

/** the lab a rollout runs on: the command runtime's (every balancer), or the compose runtime's (real containers, lb-a alone) */
export type SoakRuntime = 'command' | 'compose';

/** A second deployer started 0.3 s after the first: refused (exit 3), or queued with --wait-lease. */
export type SoakRace = 'refused' | 'wait-lease';

export interface SoakRollout {
  /** 1-based */
  readonly index: number;
  /** r2, r3, …: the lab's first rollout deployed r1 */
  readonly release: string;
  readonly runtime: SoakRuntime;
  readonly balancer: SoakBalancer;
  readonly drain: 'health' | 'deregister';
  /** --canary 1 --canary-bake <ms>, judged on HAProxy's counters */
  readonly canaryBakeMs?: number;
  readonly race?: SoakRace;
  /** SIGKILL the orchestrator this long after it started */
  readonly killAfterMs?: number;
}

export const CANARY_BAKE_MS = 5000;
/** where a kill may land: past the process's start and preflight, within a 3-host rollout */
export const KILL_WINDOW_MS = { min: 2000, max: 20_000 } as const;

const BALANCERS: readonly SoakBalancer[] = ['haproxy', 'haproxy-pair', 'alb'];

/** mulberry32: a small seeded PRNG, so a soak's kill points are the same on every run of a seed */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** the balancer and drain of rollout `index` by the turn alone */
function turnOf(index: number): Pick<SoakRollout, 'balancer' | 'drain'> {
  const i = index - 1;
  const balancer = BALANCERS[i % BALANCERS.length] ?? 'haproxy';
  const pass = Math.floor(i / BALANCERS.length);
  return { balancer, drain: balancer !== 'haproxy' && pass % 2 === 0 ? 'deregister' : 'health' };
}

const isKilled = (index: number): boolean => index % 5 === 3;

/**
 * lb-a's turn on every other pass (4, 10, 16, …: a race of each kind and a
 * kill among them), and rollout 2, so that a short run has one
 */
const isCompose = (index: number): boolean => index === 2 || index % 6 === 4;

/**
 * The soak's mix, rollout by rollout: the balancers in turn; drain.method
 * deregister on every other pass of the pair and the ELBv2 endpoint (lb-a
 * alone has no deregistration delay in its config file); a race for the fleet
 * lease every tenth rollout, alternately refused and queued; a SIGKILL every
 * fifth, offset from the races so a kill never lands on one, and the rollout
 * after it on the same balancer and drain, as the next run of the same job
 * would be (a target the killed one deregistered is registered by a
 * deploy.yml that names its balancer); a canary bake on some lone-HAProxy
 * rollouts that neither race nor are killed. The compose runtime's lab (lb-a
 * alone, so drain health) takes lb-a's turn on every other pass, and rollout
 * 2's; the rollout after a kill stays on the killed one's lab.
 */
export function soakSchedule(count: number, seed: number): SoakRollout[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, i): SoakRollout => {
    const index = i + 1;
    const turn = isKilled(index - 1) ? index - 1 : index;
    const runtime: SoakRuntime = isCompose(turn) ? 'compose' : 'command';
    const { balancer, drain } =
      runtime === 'compose' ? ({ balancer: 'haproxy', drain: 'health' } as const) : turnOf(turn);
    const race: SoakRace | undefined =
      index % 10 === 0 ? (index % 20 === 10 ? 'refused' : 'wait-lease') : undefined;
    const killed = isKilled(index);
    const killAfterMs = Math.round(
      KILL_WINDOW_MS.min + next() * (KILL_WINDOW_MS.max - KILL_WINDOW_MS.min),
    );
    const canary = index % 6 === 1 && balancer === 'haproxy' && !race && !killed;
    return {
      index,
      release: `r${index + 1}`,
      runtime,
      balancer,
      drain,
      ...(canary ? { canaryBakeMs: CANARY_BAKE_MS } : {}),
      ...(race ? { race } : {}),
      ...(killed ? { killAfterMs } : {}),
    };
  });
}
/** One line per rollout, for the bench's output. */
export function describeRollout(r: SoakRollout): string {
  const parts = [`#${r.index} ${r.release}`, r.balancer, `drain ${r.drain}`];
  if (r.runtime === 'compose') parts.splice(1, 0, 'compose');
  if (r.canaryBakeMs) parts.push(`canary bake ${r.canaryBakeMs / 1000}s`);
  if (r.race) parts.push(`race (${r.race})`);
  if (r.killAfterMs !== undefined) parts.push(`SIGKILL at ${r.killAfterMs} ms`);
  return parts.join(', ');
}
