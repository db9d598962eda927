import { loadConfigAndPlain } from '../../config/load.js';
import type { Config } from '../../config/types.js';
import { toHostJson } from '../../config/serialize.js';
import { sha256 } from '../../host/release-files.js';
import { evidenceDeps } from '../../evidence/create-source.js';
import { loadHooks } from '../../hooks/hooks.js';
import { selectHosts } from '../../rollout/plan.js';
import { makePlan, rollout } from '../../rollout/run-rollout.js';
import { skippedLine } from '../../rollout/preflight-reach.js';
import { resolveRollback } from '../../rollout/rollback-target.js';
import type { RolloutDeps, RolloutOptions, RolloutResult } from '../../rollout/types.js';
import type { Plan } from '../../rollout/plan.js';
import type { HeldLease } from '../../rollout/lease/fleet-lease.js';
import { systemClock } from '../../clock.js';
import { SkippedHostsError } from '../../errors.js';
import { fleetTiming, timingBaseFromConfig } from '../../timing/index.js';
import { settingsOfEach } from '../../balancer/each-settings.js';
import { balancersJson, renderModels } from '../timing-text.js';
import { readAgent } from '../agent-bundle.js';
import { withCanaryFlags, type CanaryFlags } from './canary-flags.js';
import { parseWaitLease, withFleetLease } from '../with-fleet-lease.js';
import { checkRolloutArtifact } from '../../rollout/artifact.js';
import { supersession } from '../../rollout/lease/superseded.js';
import type { HostConfig } from '../../config/types.js';
import { rolloutFailure, withDeployHooks, type DeployHooks } from './deploy-hooks.js';
import { parseBatchOption, parseHostsFlag } from '../fleet-flags.js';
import { Connections, interruptSignal, plainEnv, whoAmI } from '../connections.js';
import { createOutput } from '../output.js';
import { resolveSecrets } from '../../secrets/resolve.js';
import { destinationOf, type ConfigFlags } from '../config-flag.js';
import { rolloutOutput, type RolloutOutput } from './rollout-output.js';
import { targetStates } from '../target-json.js';
import { failureMessage, renderHandshakes, renderPlan, renderResult } from './rollout-report.js';

export interface RolloutCliFlags extends CanaryFlags, ConfigFlags {
  readonly release: string;
  readonly config: string;
  readonly hosts?: string;
  readonly batch?: string;
  readonly artifact?: string;
  readonly dryRun?: boolean;
  readonly rollback: boolean;
  readonly json?: boolean;
  readonly verbose?: boolean;
  /** queue for the fleet lease this long instead of being refused */
  readonly waitLease?: string;
}

/** `deploy rollback [ID]`: the same flags, less the release, which the hosts say. */
export type RollbackCliFlags = Omit<RolloutCliFlags, 'release' | keyof CanaryFlags> & {
  readonly id?: string;
};

/** source service: the host's agent reads its services' counts (protocol/ops.ts service-counts) */
async function readServiceCounts(connections: Connections, config: Config, name: string) {
  const host = config.hosts.find((h) => h.name === name);
  if (!host) throw new Error(`no host ${name} in deploy.yml`);
  return (await connections.agent(host)).run('service-counts', {});
}

export function runRollout(flags: RolloutCliFlags): Promise<void> {
  return runDeploy(flags, { kind: 'rollout', release: flags.release });
}

export function runRollback(flags: RollbackCliFlags): Promise<void> {
  return runDeploy(flags, { kind: 'rollback', ...(flags.id ? { id: flags.id } : {}) });
}

type Mode = { kind: 'rollout'; release: string } | { kind: 'rollback'; id?: string };

/** A rollout of a new release, or back to one every host has (rollback): one engine. */
async function runDeploy(flags: Omit<RolloutCliFlags, 'release'>, mode: Mode): Promise<void> {
  const verbose = flags.verbose ?? false;
  const out = rolloutOutput(createOutput({ json: flags.json ?? false, verbose }), {
    verbose,
    configPath: flags.config,
  });
  try {
    await run(flags, mode, out);
  } finally {
    out.close();
  }
}

async function run(
  flags: Omit<RolloutCliFlags, 'release'>,
  mode: Mode,
  out: RolloutOutput,
): Promise<void> {
  const asked = await readFlags(flags, mode, out);
  const { config, selected } = asked;
  const agent = await readAgent();
  const connections = new Connections(config, out, agent.sha256);
  await connections.checkAuth();
  const interrupt = interruptSignal(out);
  try {
    const deps = await rolloutDeps(asked, connections, interrupt, out);
    const release =
      mode.kind === 'rollout' ? mode.release : await resolveRollback(deps, selected, mode.id);
    const options: RolloutOptions = {
      release,
      ...(asked.hosts ? { hosts: asked.hosts } : {}),
      ...(asked.batch ? { batch: asked.batch } : {}),
      ...(mode.kind === 'rollout' && flags.artifact !== undefined
        ? { artifact: flags.artifact }
        : {}),
      dryRun: asked.dryRun,
      rollback: flags.rollback && config.rollout.rollback,
      publish: mode.kind === 'rollout',
    };
    const plan = makePlan(deps, options);
    out.text(`${mode.kind === 'rollback' ? 'rollback to ' : ''}${renderPlan(plan)}`);
    if (asked.dryRun) return await dryRun(deps, options, plan, out);
    // bad input is one line before anything, the fleet lease included
    if (mode.kind === 'rollout') await checkRolloutArtifact(config, release, flags.artifact);
    await deployLeased({ asked, mode, out, connections, interrupt, deps, options, plan });
  } finally {
    interrupt.dispose();
    await connections.close();
  }
}

/** What the flags and deploy.yml ask for, read and checked before anything connects. */
async function readFlags(flags: Omit<RolloutCliFlags, 'release'>, mode: Mode, out: RolloutOutput) {
  // what the hosts must run too (hostConfigSha256 below), from the same parse
  const { config: loaded, plain } = await loadConfigAndPlain(
    flags.config,
    { log: out, ...destinationOf(flags) },
    plainEnv(),
  );
  const hosts = parseHostsFlag(flags.hosts);
  const selected = selectHosts(loaded.hosts, hosts);
  const config = withCanaryFlags(loaded, flags, selected.length);
  // fetched once, masked as they arrive, before anything (a hook, the lease) happens
  const environment =
    mode.kind === 'rollout' ? await resolveSecrets(config, process.env) : undefined;
  const batch = parseBatchOption(flags.batch, selected.length);
  const waitMs = parseWaitLease(flags.waitLease);
  const who = whoAmI();
  const dryRun = flags.dryRun ?? false;
  const hooks = await loadHooks({
    config,
    clock: systemClock,
    log: out,
    hosts: selected.map((h) => h.name),
    performer: who,
  });
  return { config, plain, hosts, selected, environment, batch, waitMs, who, dryRun, hooks };
}

type Asked = Awaited<ReturnType<typeof readFlags>>;
type Interrupt = ReturnType<typeof interruptSignal>;

/** The engine's parts: this machine's clock and output, the hosts' agents and the balancer. */
async function rolloutDeps(
  asked: Asked,
  connections: Connections,
  interrupt: Interrupt,
  out: RolloutOutput,
): Promise<RolloutDeps> {
  const { config, environment } = asked;
  return {
    config,
    clock: systemClock,
    log: out,
    ...(environment ? { environment } : {}),
    signal: interrupt.signal,
    urgent: interrupt.urgent,
    balancer: await connections.balancer(),
    agent: (h) => connections.agent(h),
    who: asked.who,
    // what `deploy setup` publishes (setup/setup.ts), so a host running another is refused
    hostConfigSha256: sha256(toHostJson(asked.plain)),
    // a dry run changes nothing, and runs nothing that might
    ...(asked.dryRun ? {} : { hooks: asked.hooks }),
    evidence: await evidenceDeps(
      config,
      systemClock,
      (name) => readServiceCounts(connections, config, name),
      () => connections.balancer(),
    ),
  };
}

/** `--dry-run`: the timeline and invariants, then preflight and the handshakes, changing nothing. */
async function dryRun(
  deps: RolloutDeps,
  options: RolloutOptions,
  plan: Plan,
  out: RolloutOutput,
): Promise<void> {
  // the same timeline and invariants as `deploy check`, also when preflight refuses
  const each = await settingsOfEach(deps.balancer);
  const timing = fleetTiming(timingBaseFromConfig(deps.config), each);
  out.text(`\n${renderModels(timing)}`);
  const dryRunResult = {
    dryRun: true,
    plan: plan.waves.map((w) => w.map((h) => h.name)),
    ...timing.slowest.model,
    settings: each.find((e) => e.name === timing.slowest.name)?.settings,
    balancers: balancersJson(timing, each),
  };
  out.result(false, dryRunResult);
  const checked = await rollout(deps, options);
  const handshakes = checked.handshakes ?? [];
  const skipped = checked.skipped ?? [];
  // the plan above was made before preflight: the hosts it would leave out, named now
  const left = skipped.map((s) => `${skippedLine(s, options.release)}: a rollout now would exit 4`);
  out.text(
    `\n${renderHandshakes(handshakes)}\n\n${left.map((l) => `${l}\n`).join('')}dry run: preflight passed; nothing was changed`,
  );
  out.result(true, { ...dryRunResult, handshakes, ...(skipped.length > 0 && { skipped }) });
}

interface Deploying {
  readonly asked: Asked;
  readonly mode: Mode;
  readonly out: RolloutOutput;
  readonly connections: Connections;
  readonly interrupt: Interrupt;
  readonly deps: RolloutDeps;
  readonly options: RolloutOptions;
  readonly plan: Plan;
}

/** The deploy itself, holding the fleet lease, inside the deploy hooks. */
async function deployLeased(d: Deploying): Promise<void> {
  const { config, hooks } = d.asked;
  const { release } = d.options;
  // a dead host outside the plan never blocks it; one inside is preflight's (rollout.unreachable)
  const lease = {
    config,
    connections: d.connections,
    log: d.out,
    signal: d.interrupt.signal,
    waitMs: d.asked.waitMs,
    skipUnreachable: true,
  };
  const command = d.mode.kind;
  // a refusal, by the fleet lease too, is news to whoever post-deploy notifies
  await withDeployHooks(hooks, release, d.out, (deployHooks) =>
    withFleetLease({ ...lease, command, release }, async (held, signal) => {
      if (held.waited && d.mode.kind === 'rollout' && config.rollout.superseded === 'skip')
        if (await standDownIfSuperseded(d, held, deployHooks)) return;
      const result = await deployHooks.around(signal, () =>
        rollout({ ...d.deps, signal }, d.options),
      );
      await report(d, result);
    }),
  );
}

/**
 * After a wait for the lease (rollout.superseded: skip): a release older than
 * what the fleet runs now is not deployed (true); one that cannot be ordered
 * is deployed as asked, said.
 */
async function standDownIfSuperseded(
  d: Deploying,
  held: HeldLease,
  deployHooks: DeployHooks,
): Promise<boolean> {
  const { release } = d.options;
  const s = supersession(release, await liveReleases(d.connections, d.asked.selected), {
    ci: held.request.holder.ci,
    behind: held.behind.map((b) => b.lease),
  });
  if (s?.kind === 'superseded') {
    await deployHooks.stoodDown('superseded');
    d.out.text(
      `superseded: ${release} is older than ${s.by}, which the fleet runs now (${s.how ? `${s.how}; ` : ''}rollout.superseded: skip); nothing was deployed`,
    );
    d.out.result(true, { superseded: true, release, by: s.by });
    return true;
  }
  if (s?.kind === 'unordered')
    d.out.emit({
      level: 'warn',
      event: 'superseded',
      message: `not skipped: cannot tell whether ${release} is older than what the fleet runs now (${s.reason}); deploying it as asked`,
    });
  return false;
}

/** The result said, each host with its target state; a failure or a skipped host is the exit. */
async function report(d: Deploying, result: RolloutResult): Promise<void> {
  const { out, plan } = d;
  out.text(renderResult(result));
  out.finish(result);
  const targetOf = await targetStates(() => d.connections.balancer(), plan.waves.flat());
  const byName = new Map(plan.waves.flat().map((h) => [h.name, h]));
  out.result(result.ok, {
    ...result,
    hosts: result.hosts.map((h) => {
      const host = byName.get(h.host);
      return host ? { ...h, target: targetOf(host) } : h;
    }),
  });
  if (!result.ok) throw rolloutFailure(result, failureMessage(result));
  // every host reached was deployed; CI decides what the skipped ones mean (exit 4)
  if (result.skipped && result.skipped.length > 0)
    throw new SkippedHostsError(
      result.skipped.map((s) => s.host),
      result.release,
    );
}

/** What each host runs now, by its own word (null: none, or it did not say). */
async function liveReleases(
  connections: Connections,
  hosts: readonly HostConfig[],
): Promise<(string | null)[]> {
  return Promise.all(
    hosts.map(async (h) => {
      const status = await (await connections.agent(h)).run('status', {}).catch(() => undefined);
      return status?.release ?? null;
    }),
  );
}
