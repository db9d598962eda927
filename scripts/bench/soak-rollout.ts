import { performance } from 'node:perf_hooks';
import type { BenchFleet } from './fleet.js';
import { deployed, judgeRace, resultLine, tail, type Exit } from './soak-race.js';
import type { SoakRollout } from './soak-schedule.js';

/** What one scheduled rollout did, judged against what its kind must do. */
export interface SoakRun {
  readonly wallMs: number;
  /** it did what its kind must: deployed; one racer deployed and the other was refused or queued; killed */
  readonly ok: boolean;
  /** one line: what happened */
  readonly note: string;
  /** a SIGKILL landed while it ran (not after it had ended by itself) */
  readonly killed?: boolean;
  /** the release every host runs after it; undefined when not known (killed, failed) */
  readonly live?: string;
  /** hosts a killed rollout left that needed `deploy undrain` after their watchdog's heal */
  readonly undrainedByHand?: readonly string[];
}

type Spawned = ReturnType<BenchFleet['spawn']>;

const exitOf = async (p: Spawned): Promise<Exit> => {
  const r = await p;
  return {
    code: r.exitCode ?? -1,
    ...(r.signal ? { signal: r.signal } : {}),
    stdout: String(r.stdout),
    stderr: String(r.stderr),
  };
};

/** After a SIGKILL the lease's holder is gone: a rollout queues behind it rather than fail on it. */
const QUEUE = ['--wait-lease', '5m'] as const;

/**
 * Runs one scheduled rollout (deploy.yml written and set up, the release
 * staged, by the caller) and says whether it did what its kind must.
 */
export async function runSoakRollout(
  fleet: BenchFleet,
  r: SoakRollout,
  previous: string,
): Promise<SoakRun> {
  const args = ['rollout', '--release', r.release, '--json'];
  const started = performance.now();
  const wall = (): number => performance.now() - started;
  if (r.race) return race(fleet, r, previous, started);
  const canary = r.canaryBakeMs
    ? ['--canary', '1', '--canary-bake', `${r.canaryBakeMs / 1000}s`]
    : [];
  const proc = fleet.spawn([...args, ...QUEUE, ...canary]);
  if (r.killAfterMs === undefined) {
    const e = await exitOf(proc);
    const judged = (resultLine(e.stdout)?.judgements as unknown[] | undefined)?.length ?? 0;
    const ok = deployed(e) && (!r.canaryBakeMs || judged > 0);
    return {
      wallMs: wall(),
      ok,
      ...(ok ? { live: r.release } : {}),
      note: ok
        ? `deployed${r.canaryBakeMs ? `, canary judged (${judged})` : ''}`
        : `exit ${e.code}: ${tail(e)}`,
    };
  }
  let killedAt: number | undefined;
  const timer = setTimeout(() => {
    if (proc.exitCode === null && proc.kill('SIGKILL')) killedAt = wall();
  }, r.killAfterMs);
  const e = await exitOf(proc);
  clearTimeout(timer);
  if (killedAt !== undefined && e.signal === 'SIGKILL')
    return {
      wallMs: wall(),
      ok: true,
      killed: true,
      note: `SIGKILLed at ${Math.round(killedAt)} ms`,
    };
  return {
    wallMs: wall(),
    ok: deployed(e),
    ...(deployed(e) ? { live: r.release } : {}),
    note: `ended by itself before its SIGKILL at ${r.killAfterMs} ms: exit ${e.code}`,
  };
}

/**
 * Two deployers 0.3 s apart. `refused`: the same release, no queueing: one
 * deploys, the other exits 3 naming the holder. `wait-lease`: the second
 * queues with the live (older) release: when the first wins, the second
 * waits for it and then stands down as superseded; when the second wins, it
 * redeploys the live release and the first is refused. Either way exactly one
 * deploys, judged by what each printed, not only by exit codes.
 */
async function race(
  fleet: BenchFleet,
  r: SoakRollout,
  previous: string,
  started: number,
): Promise<SoakRun> {
  const first = fleet.spawn(['rollout', '--release', r.release, '--json']);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const secondRelease = r.race === 'wait-lease' ? previous : r.release;
  const second = fleet.spawn([
    'rollout',
    '--release',
    secondRelease,
    '--json',
    ...(r.race === 'wait-lease' ? QUEUE : []),
  ]);
  const [a, b] = await Promise.all([exitOf(first), exitOf(second)]);
  const wallMs = performance.now() - started;
  const won = judgeRace(r.race ?? 'refused', r.release, secondRelease, a, b);
  return {
    wallMs,
    ok: won !== undefined,
    ...(won ? { live: won.live } : {}),
    note:
      won?.note ??
      `no single winner: first exit ${a.code} (${tail(a)}); second exit ${b.code} (${tail(b)})`,
  };
}
