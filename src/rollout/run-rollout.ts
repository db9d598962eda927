import { readReleaseFiles } from './release-files.js';
import { readReleaseEnv } from './release-env.js';
import type { EnvVars } from '../host/release-env.js';
import type { HostConfig } from '../config/types.js';
import { BlockedError, UsageError } from '../errors.js';
import { RELEASE_ID } from '../release-id.js';
import type { Bounds } from './rotation.js';
import { drainLease } from './host-actions.js';
import { planRollout, selectHosts, type Plan } from './plan.js';
import { notServing, preflight, type Preflight } from './preflight.js';
import { StepRecorder } from './recorder.js';
import { planHandshakes } from './handshake/plan-steps.js';
import { guardCapacity, runWaves, type WaveRun } from './waves.js';
import { repairLeftover } from './handshake/repair.js';
import { ReceiptRecorder, receiptLine } from '../evidence/receipt.js';
import type { Receipt } from '../evidence/kit/figures.js';
import { WaveJudge } from '../evidence/wave-judge.js';
import { planFleetRollback, runFleetRollback } from './fleet-rollback.js';
import { missingRelease } from './rollback-target.js';
import { readRolloutArtifact, type ReadArtifact } from './artifact.js';
import { checkArtifactRoom } from './artifact-room.js';
import { auditReloads } from './reload-audit.js';
import { artifactShipper, describeShip } from './ship.js';
import { pruneFleet } from './prune.js';
import type { ReleaseFile } from '../host/release-files.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import type {
  FleetRollbackResult,
  HostOutcome,
  HostRelease,
  RolloutDeps,
  RolloutOptions,
  RolloutResult,
} from './types.js';

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

/** A release that is not on a host (and is not shipped), or an artifact that will not fit, refuses the rollout. */
async function refuseUnshippable(
  pre: Awaited<ReturnType<typeof preflight>>,
  shipment: Shipment,
  options: RolloutOptions,
): Promise<void> {
  const { plan } = pre;
  const missing = shipment.publish ? [] : missingRelease(pre.statuses, plan.release);
  if (missing.length > 0)
    throw new BlockedError(
      `preflight: release ${plan.release} is not on ${missing.join('; ')}; nothing was touched`,
    );
  // a later wave's prepare must not be the first to find the artifact will not fit
  if (shipment.artifact && !options.dryRun)
    await checkArtifactRoom(plan.waves.flat(), pre.agents, plan.release, shipment.artifact);
}

/** The receipt's window opened on the balancer's counters, when the balancer can count. */
async function beginReceipt(deps: RolloutDeps): Promise<ReceiptRecorder | undefined> {
  const evidence = deps.evidence?.receipt;
  if (!evidence) return undefined;
  // the rollout's total counts every server of the backend, as the backend's requests do;
  // each host's own window counts its server alone
  const receipt = new ReceiptRecorder(
    evidence,
    deps.config.hosts.map((h) => h.name),
    deps.log,
  );
  await receipt.begin();
  return receipt;
}

async function walk(
  fleetDeps: RolloutDeps,
  options: RolloutOptions,
  asked: Plan,
  shipment: Shipment,
): Promise<RolloutResult> {
  const pre = await preflight(fleetDeps, asked, { dryRun: options.dryRun });
  // rollout.unreachable: skip: the hosts preflight could not reach are out of the plan,
  // and the capacity guard counts them as not serving
  const { plan, skipped } = pre;
  const deps = notServing(fleetDeps, skipped);
  await refuseUnshippable(pre, shipment, options);
  const bounds = pre.bounds;
  if (options.dryRun) return { ...dryRunResult(deps, plan, pre, bounds), ...skippedOf(pre) };
  const startedAt = deps.clock.now();
  const liveBefore = await repairLeftovers(deps, plan, pre, bounds);
  const receipt = await beginReceipt(deps);
  const run = {
    ...waveRun(deps, options, plan, pre, { bounds, startedAt, liveBefore, shipment }),
    ...(receipt && { receipt }),
    ...(deps.evidence && { judge: new WaveJudge({ ...deps, evidence: deps.evidence }) }),
    // the metrics receipt's clients are loaded while the last wave waits, not after its last step
    ...(!receipt && { whileLastWaveWaits: () => deps.evidence?.metrics?.warm() }),
  };
  const unaudit = auditReloads(deps.balancer, plan.waves.flat(), run.recorder);
  const waves = await runWaves(run).finally(unaudit);
  const judgedBad = waves.judgements.find((j) => !j.passed);
  const ok =
    waves.outcomes.length === plan.waves.flat().length &&
    waves.outcomes.every((o) => o.result === 'deployed') &&
    judgedBad === undefined;
  // a failed canary goes back whatever on_failure says: it is what a canary is for
  const fleetRollback = ok
    ? undefined
    : await rollBackFleet(run, waves.outcomes, judgedBad?.kind === 'canary');
  // three independent reads of the end, at once: the balancer's counters, each host's
  // release (read-only, it runs beside the prune in the host's session) and the prune
  const [receipted, ended, pruned] = await Promise.all([
    receipt ? receipt.finish() : metricsAtEnd(deps, startedAt),
    endedOn(plan.waves.flat(), pre.agents),
    // a rollback keeps every release: the one it left may be wanted again
    ok && shipment.publish ? pruneFleet(deps, plan.waves.flat(), run.agentOf) : undefined,
  ]);
  return {
    ok,
    release: plan.release,
    hosts: waves.outcomes,
    notReached: plan.waves
      .slice(waves.reached)
      .flat()
      .map((h) => h.name),
    elapsed_ms: deps.clock.now() - startedAt,
    ...skippedOf(pre),
    ...(waves.blocked ? { blocked: waves.blocked } : {}),
    ...(waves.prepareFailed ? { prepareFailed: waves.prepareFailed } : {}),
    ...(fleetRollback ? { fleetRollback } : {}),
    ended,
    ...(receipted && { receipt: receipted }),
    ...(waves.judgements.length > 0 && { judgements: waves.judgements }),
    ...(pruned ? { pruned } : {}),
  };
}

const skippedOf = (pre: Preflight) => (pre.skipped.length > 0 ? { skipped: pre.skipped } : {});

/** A metrics receipt: the provider's figures for the rollout's whole minutes, provisional at first. */
async function metricsAtEnd(deps: RolloutDeps, from: number): Promise<Receipt | undefined> {
  const r = await deps.evidence?.metrics?.receipt(from, deps.clock.now());
  if (r)
    deps.log.emit({
      // a share no one counted is said as loudly as one that could not be read
      level: r.total.unread === undefined && r.uncounted === undefined ? 'info' : 'warn',
      event: 'receipt',
      message: receiptLine(r),
      fields: {
        ...r.total,
        final: r.final,
        window: r.window,
        ...(r.uncounted && { uncounted: r.uncounted }),
      },
    });
  return r;
}

/** Nothing runs: the plan, and the list of steps each host would run with its bounds. */
function dryRunResult(
  deps: RolloutDeps,
  plan: Plan,
  pre: Preflight,
  bounds: Bounds,
): RolloutResult {
  const hosts = plan.waves.flat();
  const before = new Map(hosts.map((h) => [h.name, pre.statuses.get(h.name)?.release ?? null]));
  return {
    ok: true,
    release: plan.release,
    hosts: [],
    notReached: hosts.map((h) => h.name),
    elapsed_ms: 0,
    handshakes: planHandshakes(deps.config, bounds, hosts, before),
  };
}

/** What each host runs before we touch it (a leftover drain repaired first): what a rollback returns to. */
async function repairLeftovers(
  deps: RolloutDeps,
  plan: Plan,
  pre: Preflight,
  bounds: Bounds,
): Promise<Map<string, string | null>> {
  const liveBefore = new Map<string, string | null>();
  for (const host of plan.waves.flat()) {
    const status = pre.statuses.get(host.name);
    const agent = pre.agents.get(host.name);
    if (status && agent)
      liveBefore.set(host.name, await repairLeftover(deps, agent, status, host, bounds));
  }
  return liveBefore;
}

interface RunShape {
  readonly bounds: Bounds;
  readonly startedAt: number;
  readonly liveBefore: ReadonlyMap<string, string | null>;
  readonly shipment: Shipment;
}

function waveRun(
  deps: RolloutDeps,
  options: RolloutOptions,
  plan: Plan,
  pre: Preflight,
  { bounds, startedAt, liveBefore, shipment }: RunShape,
): WaveRun {
  const recorders = new Map<string, StepRecorder>();
  const recorder = (host: HostConfig): StepRecorder => {
    let r = recorders.get(host.name);
    if (!r) {
      r = new StepRecorder(host.name, plan.release, deps.who, deps.clock, deps.log, startedAt);
      recorders.set(host.name, r);
    }
    return r;
  };
  const agentOf = (host: HostConfig): HostAgent => {
    const a = pre.agents.get(host.name);
    if (!a) throw new BlockedError(`${host.name}: not reachable in preflight`);
    return a;
  };
  return {
    deps,
    plan,
    bounds,
    startedAt,
    liveBefore,
    rollback: options.rollback,
    returning: !shipment.publish,
    slowStart: pre.settings.slowStart ?? 0,
    failOpen: pre.failOpen,
    recorder,
    agentOf,
    // the preflight sessions answer a status without starting an agent per call
    reader: (host) => {
      const open = pre.agents.get(host.name);
      return open ? Promise.resolve(open) : deps.agent(host);
    },
    prepare: preparer(deps, plan, shipment, recorder, agentOf),
  };
}

/** Publish the release on a wave's hosts before their lock (and ship the artifact first). */
function preparer(
  deps: RolloutDeps,
  plan: Plan,
  { files, env, publish, artifact }: Shipment,
  recorder: (host: HostConfig) => StepRecorder,
  agentOf: (host: HostConfig) => HostAgent,
): WaveRun['prepare'] {
  const ship = artifact
    ? artifactShipper(
        deps.log,
        artifact,
        plan.release,
        deps.config.rollout.uploadConcurrency,
        deps.signal,
      )
    : undefined;
  return (wave) =>
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
}

/** rollout.on_failure rollback: the hosts already on the new release go back, wave by wave. */
async function rollBackFleet(
  run: WaveRun,
  outcomes: readonly HostOutcome[],
  canaryFailed: boolean,
): Promise<FleetRollbackResult | undefined> {
  const { deps, plan, bounds } = run;
  if ((deps.config.rollout.onFailure !== 'rollback' && !canaryFailed) || deps.signal.aborted)
    return undefined;
  const back = planFleetRollback(plan.release, plan.waves, outcomes, run.liveBefore);
  if (back.waves.length === 0 && back.kept.length === 0) return undefined;
  return runFleetRollback({
    deps,
    plan: back,
    release: plan.release,
    rollback: run.rollback,
    bounds,
    leaseMs: drainLease(deps, bounds.awaitOut, bounds.awaitIn),
    startedAt: run.startedAt,
    agentOf: run.agentOf,
    reader: run.reader,
    guard: (wave) => guardCapacity(deps, wave, run.failOpen),
    failOpen: run.failOpen,
  });
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
        ?.run('status', {})
        .catch(() => undefined);
      return { host: host.name, release: status?.release ?? null };
    }),
  );
}
