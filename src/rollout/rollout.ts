import type { FailOpenMinimum } from '../balancer/fail-open.js';
import { readReleaseFiles } from './release-files.js';
import type { HostConfig } from '../config/types.js';
import { BlockedError, UsageError } from '../errors.js';
import { RELEASE_ID } from '../release-id.js';
import { awaitInBound, awaitOutBound } from '../timing/index.js';
import { deployHost, type Bounds } from './host-deploy.js';
import { drainLease } from './host-actions.js';
import { planRollout, selectHosts, type Plan } from './plan.js';
import { preflight, targets, waveCapacity, type Preflight } from './preflight.js';
import { StepRecorder } from './recorder.js';
import { awaitSlowStart, rampEnd } from './slow-start.js';
import { repairLeftover } from './repair.js';
import { readRolloutArtifact, type ReadArtifact } from './artifact.js';
import { artifactShipper, describeShip } from './ship.js';
import { pruneFleet } from './prune.js';
import type { ReleaseFile } from '../host/release-files.js';
import type { HostOutcome, RolloutDeps, RolloutOptions, RolloutResult } from './types.js';

export interface RolloutRun {
  readonly plan: Plan;
  readonly preflight: Preflight;
  /** resolves when the rollout ends; never rejects for a host failure (see `result.ok`) */
  readonly done: Promise<RolloutResult>;
}

export function makePlan(deps: RolloutDeps, options: RolloutOptions): Plan {
  if (!RELEASE_ID.test(options.release)) {
    throw new UsageError(
      `--release ${JSON.stringify(options.release)}: use letters, digits, '.', '_' and '-' (at most 128)`,
    );
  }
  const hosts = selectHosts(deps.config.hosts, options.hosts);
  return planRollout(options.release, hosts, options.batch ?? deps.config.rollout.batch);
}

/**
 * Preflight, then one wave at a time: every host of a wave runs the drain
 * handshake concurrently; the next wave's release is published while this one
 * deploys. The first failing wave ends the rollout; later hosts stay untouched.
 */
export async function rollout(deps: RolloutDeps, options: RolloutOptions): Promise<RolloutResult> {
  const plan = makePlan(deps, options);
  const files = await readReleaseFiles(deps.config);
  // read (and a directory packed) before any host is touched: a bad path is exit 2
  const artifact = await readRolloutArtifact(deps.config, plan.release, options.artifact);
  try {
    return await walk(deps, options, plan, files, artifact);
  } finally {
    await artifact?.cleanup();
  }
}

async function walk(
  deps: RolloutDeps,
  options: RolloutOptions,
  plan: Plan,
  files: ReleaseFile[],
  artifact: ReadArtifact | undefined,
): Promise<RolloutResult> {
  const pre = await preflight(deps, plan);
  const startedAt = deps.clock.now();
  const bounds: Bounds = {
    // a check that started inside the bound may still be answering: allow its timeout
    awaitOut: awaitOutBound(pre.settings, deps.config.drain) + pre.settings.timeout,
    awaitIn: awaitInBound(pre.settings) + pre.settings.timeout,
    interval: pre.settings.interval,
  };
  if (options.dryRun) {
    for (const agent of pre.agents.values()) agent.close?.();
    return {
      ok: true,
      release: plan.release,
      hosts: [],
      notReached: plan.waves.flat().map((h) => h.name),
      elapsed_ms: 0,
    };
  }

  // what each host runs before we touch it: what a rollback returns to
  const liveBefore = new Map<string, string | null>();
  for (const host of plan.waves.flat()) {
    const status = pre.statuses.get(host.name);
    const agent = pre.agents.get(host.name);
    if (status && agent)
      liveBefore.set(host.name, await repairLeftover(deps, agent, status, host.target, bounds));
  }

  const recorders = new Map<string, StepRecorder>();
  const recorder = (host: HostConfig): StepRecorder => {
    let r = recorders.get(host.name);
    if (!r) {
      r = new StepRecorder(host.name, plan.release, deps.who, deps.clock, deps.log, startedAt);
      recorders.set(host.name, r);
    }
    return r;
  };
  const agentOf = (host: HostConfig) => {
    const a = pre.agents.get(host.name);
    if (!a) throw new BlockedError(`${host.name}: not reachable in preflight`);
    return a;
  };
  const ship = artifact
    ? artifactShipper(deps.log, artifact, plan.release, deps.config.rollout.uploadConcurrency)
    : undefined;
  const prepare = (wave: readonly HostConfig[]) =>
    Promise.allSettled(
      wave.map((h) =>
        recorder(h).step(
          'prepare',
          async () => {
            const agent = agentOf(h);
            // opened in preflight; again only if that session has ended since
            await agent.openSession?.();
            // the release's files first, then ours into that directory
            const shipped = ship ? await ship(h, agent) : undefined;
            await agent.publish(plan.release, files);
            return shipped;
          },
          describeShip,
        ),
      ),
    );

  const outcomes: HostOutcome[] = [];
  let blocked: string | undefined;
  let prepareFailed: string | undefined;
  let next = plan.waves[0] ? prepare(plan.waves[0]) : Promise.resolve([]);
  let waveIndex = 0;
  // when the last wave's hosts finish ramping up under slow start
  let rampEnds = 0;
  for (; waveIndex < plan.waves.length; waveIndex += 1) {
    const wave = plan.waves[waveIndex] ?? [];
    const prepared = await next;
    const failedPrepare = prepared.flatMap((r, i) =>
      r.status === 'rejected' ? [[wave[i]?.name, r.reason] as const] : [],
    );
    if (failedPrepare.length > 0) {
      const [name, reason] = failedPrepare[0] ?? [];
      const why = reason instanceof Error ? reason.message : String(reason);
      prepareFailed = `${name}: prepare failed, this wave was not drained: ${why}`;
      break;
    }
    if (deps.signal.aborted) break;
    const later = plan.waves[waveIndex + 1];
    next = later ? prepare(later) : Promise.resolve([]);
    // the earlier waves' outcomes are kept: stopping here is reported, not thrown away
    await awaitSlowStart(deps, rampEnds);
    blocked = await guardCapacity(deps, wave, pre.failOpen);
    if (blocked) break;
    deps.log.emit({
      level: 'debug',
      event: 'wave',
      message: `wave ${waveIndex + 1} of ${plan.waves.length}: ${wave.map((h) => h.name).join(', ')}`,
      fields: {
        wave: waveIndex + 1,
        waves: plan.waves.length,
        hosts: wave.map((h) => ({ host: h.name, releaseBefore: liveBefore.get(h.name) ?? null })),
      },
    });
    const leaseMs = drainLease(deps, bounds.awaitOut, bounds.awaitIn);
    const results = await Promise.all(
      wave.map((host) =>
        deployHost({
          deps,
          host,
          agent: agentOf(host),
          release: plan.release,
          rollback: options.rollback,
          bounds,
          rec: recorder(host),
          leaseMs,
          liveBefore: liveBefore.get(host.name) ?? null,
        }),
      ),
    );
    outcomes.push(...results);
    rampEnds = rampEnd(results, startedAt, pre.settings.slowStart ?? 0);
    if (results.some((r) => r.result !== 'deployed') || deps.signal.aborted) {
      waveIndex += 1;
      break;
    }
  }
  await next.catch(() => undefined);
  // sessions prepared for hosts the rollout never reached hold no lock: end them
  for (const agent of pre.agents.values()) agent.close?.();
  const notReached = plan.waves
    .slice(waveIndex)
    .flat()
    .map((h) => h.name);
  const ok =
    outcomes.length === plan.waves.flat().length && outcomes.every((o) => o.result === 'deployed');
  const pruned = ok ? await pruneFleet(deps, plan.waves.flat(), agentOf) : undefined;
  return {
    ok,
    release: plan.release,
    hosts: outcomes,
    notReached,
    elapsed_ms: deps.clock.now() - startedAt,
    ...(blocked ? { blocked } : {}),
    ...(prepareFailed ? { prepareFailed } : {}),
    ...(pruned ? { pruned } : {}),
  };
}

/** Right before a wave drains: the balancer's current view, not the preflight's. */
async function guardCapacity(
  deps: RolloutDeps,
  wave: readonly HostConfig[],
  failOpen: FailOpenMinimum | undefined,
): Promise<string | undefined> {
  const states = await deps.balancer.states(targets(deps.config.hosts));
  const verdict = waveCapacity(deps, wave, states, failOpen);
  deps.log.emit({ level: 'debug', event: 'capacity', message: verdict.message });
  return verdict.ok
    ? undefined
    : `capacity guard before ${wave.map((h) => h.name).join(', ')}: ${verdict.message}`;
}
