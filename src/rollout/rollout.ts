import type { TargetState } from '../balancer/balancer.js';
import type { FailOpenMinimum } from '../balancer/fail-open.js';
import { readReleaseFiles } from './release-files.js';
import { readReleaseEnv } from './release-env.js';
import type { EnvVars } from '../host/release-env.js';
import type { HostConfig } from '../config/types.js';
import { BlockedError, UsageError } from '../errors.js';
import { RELEASE_ID } from '../release-id.js';
import { deployHost } from './host-deploy.js';
import { rotationBounds } from './rotation.js';
import { drainLease } from './host-actions.js';
import { planRollout, selectHosts, type Plan } from './plan.js';
import { preflight, targets, waveCapacity, type Preflight } from './preflight.js';
import { StepRecorder } from './recorder.js';
import { awaitSlowStart, rampEnd } from './slow-start.js';
import { repairLeftover } from './repair.js';
import { planFleetRollback, runFleetRollback } from './fleet-rollback.js';
import { missingRelease } from './rollback-target.js';
import { readRolloutArtifact, type ReadArtifact } from './artifact.js';
import { artifactShipper, describeShip } from './ship.js';
import { pruneFleet } from './prune.js';
import type { ReleaseFile } from '../host/release-files.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import type {
  HostOutcome,
  HostRelease,
  RolloutDeps,
  RolloutOptions,
  RolloutResult,
} from './types.js';

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
  return planRollout(
    options.release,
    hosts,
    options.batch ?? deps.config.rollout.batch,
    deps.config.rollout.canary?.hosts,
  );
}

/**
 * Preflight, then one wave at a time: every host of a wave runs the drain
 * handshake concurrently; the next wave's release is published while this one
 * deploys. The first failing wave ends the rollout; later hosts stay untouched.
 */
export async function rollout(deps: RolloutDeps, options: RolloutOptions): Promise<RolloutResult> {
  const plan = makePlan(deps, options);
  const files = await readReleaseFiles(deps.config);
  const publish = options.publish ?? true;
  // a rollback ships nothing: the release's .env on the host is the one it had
  const env = publish ? readReleaseEnv(deps.config, deps.environment ?? process.env) : undefined;
  // read (and a directory packed) before any host is touched: a bad path is exit 2;
  // a rollback returns to a release the hosts have, so it ships nothing
  const artifact = publish
    ? await readRolloutArtifact(deps.config, plan.release, options.artifact)
    : undefined;
  try {
    return await walk(deps, options, plan, { files, env, publish, artifact });
  } finally {
    await artifact?.cleanup();
  }
}

interface Shipment {
  readonly files: ReleaseFile[];
  readonly env: EnvVars | undefined;
  /** false: `deploy rollback`, the release is on every host already */
  readonly publish: boolean;
  readonly artifact: ReadArtifact | undefined;
}

async function walk(
  deps: RolloutDeps,
  options: RolloutOptions,
  plan: Plan,
  { files, env, publish, artifact }: Shipment,
): Promise<RolloutResult> {
  const pre = await preflight(deps, plan, { dryRun: options.dryRun });
  const missing = publish ? [] : missingRelease(pre.statuses, plan.release);
  if (missing.length > 0) {
    for (const agent of pre.agents.values()) agent.close?.();
    throw new BlockedError(
      `preflight: release ${plan.release} is not on ${missing.join('; ')}; nothing was touched`,
    );
  }
  const startedAt = deps.clock.now();
  const bounds = rotationBounds(pre.settings, deps.config.drain);
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
    ? artifactShipper(
        deps.log,
        artifact,
        plan.release,
        deps.config.rollout.uploadConcurrency,
        deps.signal,
      )
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
            // a release that is not shipped is on the host already (checked in preflight)
            if (!publish) return undefined;
            // the release's files first, then ours into that directory
            const shipped = ship ? await ship(h, agent) : undefined;
            await agent.publish(plan.release, files, env);
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
    if (deps.signal.aborted) break;
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
          ...(publish ? {} : { returning: true }),
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
  const ok =
    outcomes.length === plan.waves.flat().length && outcomes.every((o) => o.result === 'deployed');
  const back =
    !ok && deps.config.rollout.onFailure === 'rollback' && !deps.signal.aborted
      ? planFleetRollback(plan.release, plan.waves, outcomes, liveBefore)
      : undefined;
  const fleetRollback =
    back && (back.waves.length > 0 || back.kept.length > 0)
      ? await runFleetRollback({
          deps,
          plan: back,
          release: plan.release,
          rollback: options.rollback,
          bounds,
          leaseMs: drainLease(deps, bounds.awaitOut, bounds.awaitIn),
          startedAt,
          agentOf,
          guard: (wave) => guardCapacity(deps, wave, pre.failOpen),
        })
      : undefined;
  const ended = await endedOn(plan.waves.flat(), pre.agents);
  // sessions prepared for hosts the rollout never reached hold no lock: end them
  for (const agent of pre.agents.values()) agent.close?.();
  const notReached = plan.waves
    .slice(waveIndex)
    .flat()
    .map((h) => h.name);
  // a rollback keeps every release: the one it left may be wanted again
  const pruned = ok && publish ? await pruneFleet(deps, plan.waves.flat(), agentOf) : undefined;
  return {
    ok,
    release: plan.release,
    hosts: outcomes,
    notReached,
    elapsed_ms: deps.clock.now() - startedAt,
    ...(blocked ? { blocked } : {}),
    ...(prepareFailed ? { prepareFailed } : {}),
    ...(fleetRollback ? { fleetRollback } : {}),
    ended,
    ...(pruned ? { pruned } : {}),
  };
}

/** What each host runs at the end, by its own word: the result says where the fleet stands. */
async function endedOn(
  hosts: readonly HostConfig[],
  agents: ReadonlyMap<string, HostAgent>,
): Promise<HostRelease[]> {
  return Promise.all(
    hosts.map(async (host) => {
      const status = await agents
        .get(host.name)
        ?.status()
        .catch(() => undefined);
      return { host: host.name, release: status?.release ?? null };
    }),
  );
}

/**
 * Right before a wave drains: the balancer's current view, not the preflight's.
 * A balancer that cannot answer (throttled past the retry bound, 5xx, access
 * denied) stops the rollout here like a refusal: earlier waves are deployed,
 * and throwing would lose their result, the report and on_failure rollback.
 */
async function guardCapacity(
  deps: RolloutDeps,
  wave: readonly HostConfig[],
  failOpen: FailOpenMinimum | undefined,
): Promise<string | undefined> {
  const before = `capacity guard before ${wave.map((h) => h.name).join(', ')}`;
  let states: ReadonlyMap<string, TargetState>;
  try {
    states = await deps.balancer.states(targets(deps.config.hosts));
  } catch (error) {
    return `${before}: the balancer did not answer (${error instanceof Error ? error.message : String(error)}); nothing of this wave was drained`;
  }
  const verdict = waveCapacity(deps, wave, states, failOpen);
  deps.log.emit({ level: 'debug', event: 'capacity', message: verdict.message });
  return verdict.ok ? undefined : `${before}: ${verdict.message}`;
}
