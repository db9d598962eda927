import type { TargetState } from '../balancer/balancer.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import type { HostConfig } from '../config/types.js';
import { messageOf } from '../errors.js';
import type { HostWindow, ReceiptRecorder } from '../evidence/receipt.js';
import type { JudgedWave, WaveJudge } from '../evidence/wave-judge.js';
import { deployHost } from './handshake/deploy-host.js';
import { WaveRead } from './handshake/wave-read.js';
import { everyHost } from './handshake/waiting.js';
import { drainLease } from './host-actions.js';
import type { Plan } from './plan.js';
import { targets, waveCapacity, type Preflight } from './preflight.js';
import type { StepRecorder } from './recorder.js';
import type { Bounds } from './rotation.js';
import { awaitSlowStart, rampEnd } from './slow-start.js';
import type { HostOutcome, RolloutDeps } from './types.js';

/** What the wave loop needs of the rollout around it. */
export interface WaveRun {
  readonly deps: RolloutDeps;
  readonly plan: Plan;
  readonly bounds: Bounds;
  readonly startedAt: number;
  /** what each host ran before this rollout touched it: what a rollback returns to */
  readonly liveBefore: ReadonlyMap<string, string | null>;
  readonly rollback: boolean;
  /** `deploy rollback`: the release ran before, it may predate x-release */
  readonly returning: boolean;
  readonly slowStart: number;
  readonly failOpen: Preflight['failOpen'];
  readonly recorder: (host: HostConfig) => StepRecorder;
  readonly agentOf: (host: HostConfig) => HostAgent;
  /** a host's agent for a read: the session preflight opened on a host of the plan, else a new one */
  readonly reader: (host: HostConfig) => Promise<HostAgent>;
  /** publish the release on a wave's hosts (before their lock): a rejection per host that failed */
  readonly prepare: (wave: readonly HostConfig[]) => Promise<PromiseSettledResult<unknown>[]>;
  /** the balancer's counts around each host's handshake */
  readonly receipt?: ReceiptRecorder;
  /** the canary's bake, bakes between waves, the watch */
  readonly judge?: WaveJudge;
  /**
   * once every host of the last wave is in its overlap (or done): the rollout's end loads
   * what it reads with (a metrics receipt's clients) while nothing but waiting goes on
   */
  readonly whileLastWaveWaits?: () => void;
}

export interface WavesResult {
  readonly outcomes: HostOutcome[];
  /** the first wave not run (the plan's length when all ran) */
  readonly reached: number;
  readonly blocked?: string;
  readonly prepareFailed?: string;
  /** every bake and watch that ran, the failed one last */
  readonly judgements: JudgedWave[];
}

/**
 * One wave at a time: every host of a wave runs the handshake concurrently,
 * while the next wave's release is prepared. The first failing wave ends the
 * loop; later hosts stay untouched, and the earlier waves' outcomes are kept.
 */
export async function runWaves(run: WaveRun): Promise<WavesResult> {
  const { deps, plan } = run;
  const outcomes: HostOutcome[] = [];
  const judgements: JudgedWave[] = [];
  let next = prepareWave(run, 0);
  let rampEnds = 0;
  let index = 0;
  const stop = async (extra: Partial<WavesResult> = {}): Promise<WavesResult> => {
    await next.catch(() => undefined);
    return { outcomes, reached: index, judgements, ...extra };
  };
  for (; index < plan.waves.length; index += 1) {
    const wave = plan.waves[index] ?? [];
    const prepareFailed = failedPrepare(wave, await next);
    if (prepareFailed) return stop({ prepareFailed });
    if (deps.signal.aborted) return stop();
    next = prepareWave(run, index + 1);
    await awaitSlowStart(deps, rampEnds);
    if (deps.signal.aborted) return stop();
    const blocked = await guardCapacity(deps, wave, run.failOpen);
    if (blocked) return stop({ blocked });
    const last = index === plan.waves.length - 1;
    const results = await deployWave(run, wave, index, last ? run.whileLastWaveWaits : undefined);
    outcomes.push(...results);
    rampEnds = rampEnd(results, run.startedAt, run.slowStart);
    if (results.some((r) => r.result !== 'deployed') || deps.signal.aborted) {
      index += 1;
      return stop();
    }
    const judged = await judgeWave(run, index);
    if (judged) judgements.push(judged);
    if ((judged && !judged.passed) || deps.signal.aborted) {
      index += 1;
      return stop();
    }
  }
  return stop();
}

/** the hosts on the new release so far against those still on the old one */
function judgeWave(run: WaveRun, index: number): Promise<JudgedWave | undefined> {
  const names = (waves: readonly (readonly HostConfig[])[]) => waves.flat().map((h) => h.name);
  return (
    run.judge?.afterWave({
      index,
      canary: run.plan.canary ?? false,
      deployed: names(run.plan.waves.slice(0, index + 1)),
      rest: names(run.plan.waves.slice(index + 1)),
    }) ?? Promise.resolve(undefined)
  );
}

function prepareWave(run: WaveRun, index: number): Promise<PromiseSettledResult<unknown>[]> {
  const wave = run.plan.waves[index];
  return wave ? run.prepare(wave) : Promise.resolve([]);
}

function failedPrepare(
  wave: readonly HostConfig[],
  prepared: readonly PromiseSettledResult<unknown>[],
): string | undefined {
  const i = prepared.findIndex((r) => r.status === 'rejected');
  const failed = prepared[i];
  if (!failed || failed.status !== 'rejected') return undefined;
  return `${wave[i]?.name}: prepare failed, this wave was not drained: ${messageOf(failed.reason)}`;
}

function deployWave(
  run: WaveRun,
  wave: readonly HostConfig[],
  index: number,
  whileWaiting?: () => void,
) {
  const { deps, plan, bounds, liveBefore } = run;
  deps.log.emit({
    level: 'debug',
    event: 'wave',
    message: `wave ${index + 1} of ${plan.waves.length}: ${wave.map((h) => h.name).join(', ')}`,
    fields: {
      wave: index + 1,
      waves: plan.waves.length,
      hosts: wave.map((h) => ({ host: h.name, releaseBefore: liveBefore.get(h.name) ?? null })),
    },
  });
  const leaseMs = drainLease(deps, bounds.awaitOut, bounds.awaitIn);
  const guard = { wave, failOpen: run.failOpen, shared: new WaveRead(wave), reader: run.reader };
  const waits = whileWaiting ? everyHost(wave, whileWaiting) : undefined;
  return Promise.all(
    wave.map(async (host) => {
      const handshake = (window?: HostWindow) =>
        deployHost({
          deps,
          host,
          agent: run.agentOf(host),
          release: plan.release,
          rollback: run.rollback,
          bounds,
          rec: run.recorder(host),
          leaseMs,
          liveBefore: liveBefore.get(host.name) ?? null,
          guard,
          ...(run.returning ? { returning: true } : {}),
          ...(window && { receipt: window }),
          ...(waits && { waiting: () => waits(host.name) }),
        });
      try {
        return await (run.receipt ? run.receipt.host(host.name, handshake) : handshake());
      } finally {
        waits?.(host.name);
      }
    }),
  );
}

/**
 * Right before a wave drains: the balancer's current view, not the preflight's.
 * A balancer that cannot answer (throttled past the retry bound, 5xx, access
 * denied) stops the rollout here like a refusal: earlier waves are deployed,
 * and throwing would lose their result, the report and on_failure rollback.
 */
export async function guardCapacity(
  deps: RolloutDeps,
  wave: readonly HostConfig[],
  failOpen: Preflight['failOpen'],
): Promise<string | undefined> {
  const before = `capacity guard before ${wave.map((h) => h.name).join(', ')}`;
  let states: ReadonlyMap<string, TargetState>;
  try {
    states = await deps.balancer.states(targets(deps.config.hosts));
  } catch (error) {
    return `${before}: the balancer did not answer (${messageOf(error)}); nothing of this wave was drained`;
  }
  const verdict = waveCapacity(deps, wave, states, failOpen);
  deps.log.emit({ level: 'debug', event: 'capacity', message: verdict.message });
  return verdict.ok ? undefined : `${before}: ${verdict.message}`;
}
