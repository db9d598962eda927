import { loadConfig } from '../config/read.js';
import { toHostJson } from '../config/serialize.js';
import { sha256 } from '../host/release-files.js';
import { BlockedError, OperationError } from '../errors.js';
import { selectHosts } from '../rollout/plan.js';
import { makePlan, rollout } from '../rollout/rollout.js';
import type { RolloutDeps } from '../rollout/types.js';
import { systemClock } from '../clock.js';
import {
  renderInvariants,
  renderTimeline,
  timingInputFromConfig,
  timingModel,
} from '../timing/index.js';
import { readAgent } from './agent-bundle.js';
import { parseBatchOption, parseHostsFlag } from './fleet-flags.js';
import { Fleet, interruptSignal, plainConfig, whoAmI } from './fleet.js';
import { createOutput } from './output.js';
import { rolloutOutput, type RolloutOutput } from './rollout-output.js';
import { targetStates } from './target-json.js';
import { failureMessage, renderPlan, renderResult } from './rollout-report.js';

export interface RolloutCliFlags {
  readonly release: string;
  readonly config: string;
  readonly hosts?: string;
  readonly batch?: string;
  readonly artifact?: string;
  readonly dryRun?: boolean;
  readonly rollback: boolean;
  readonly json?: boolean;
  readonly verbose?: boolean;
}

export async function runRollout(flags: RolloutCliFlags): Promise<void> {
  const verbose = flags.verbose ?? false;
  const out = rolloutOutput(createOutput({ json: flags.json ?? false, verbose }), {
    verbose,
    configPath: flags.config,
  });
  try {
    await run(flags, out);
  } finally {
    out.close();
  }
}

async function run(flags: RolloutCliFlags, out: RolloutOutput): Promise<void> {
  const config = await loadConfig(flags.config, { log: out });
  const hosts = parseHostsFlag(flags.hosts);
  const batch = parseBatchOption(flags.batch, selectHosts(config.hosts, hosts).length);
  const options = {
    release: flags.release,
    ...(hosts ? { hosts } : {}),
    ...(batch ? { batch } : {}),
    ...(flags.artifact !== undefined ? { artifact: flags.artifact } : {}),
    dryRun: flags.dryRun ?? false,
    rollback: flags.rollback && config.rollout.rollback,
  };
  const agent = await readAgent();
  const fleet = new Fleet(config, out, agent.sha256);
  const interrupt = interruptSignal(out);
  try {
    const deps: RolloutDeps = {
      config,
      clock: systemClock,
      log: out,
      signal: interrupt.signal,
      balancer: await fleet.balancer(),
      agent: (h) => fleet.agent(h),
      who: whoAmI(),
      // what `deploy setup` publishes (fleet/setup.ts), so a host running another is refused
      hostConfigSha256: sha256(toHostJson(await plainConfig(flags.config))),
    };
    const plan = makePlan(deps, options);
    out.text(renderPlan(plan));
    let dryRun: Record<string, unknown> = {};
    if (options.dryRun) {
      const settings = await deps.balancer.settings();
      const model = timingModel(timingInputFromConfig(config, settings));
      out.text(`\n${renderTimeline(model.timeline)}\n\n${renderInvariants(model.invariants)}`);
      // the same timeline and invariants as `deploy check`, also when preflight refuses
      dryRun = {
        dryRun: true,
        plan: plan.waves.map((w) => w.map((h) => h.name)),
        ...model,
        settings,
      };
      out.result(false, dryRun);
    }
    const result = await rollout(deps, options);
    if (options.dryRun) {
      out.text('\ndry run: preflight passed; nothing was changed');
      out.result(true, dryRun);
      return;
    }
    out.text(renderResult(result));
    out.finish(result);
    const targetOf = await targetStates(() => fleet.balancer(), plan.waves.flat());
    const byName = new Map(plan.waves.flat().map((h) => [h.name, h]));
    out.result(result.ok, {
      ...result,
      hosts: result.hosts.map((h) => {
        const host = byName.get(h.host);
        return host ? { ...h, target: targetOf(host) } : h;
      }),
    });
    if (!result.ok) {
      if (result.blocked) throw new BlockedError(result.blocked);
      // a release that cannot be prepared is the release's failure, not a refusal
      if (result.prepareFailed) throw new OperationError(result.prepareFailed);
      const failed = result.hosts.filter((h) => h.result !== 'deployed');
      // every host that failed was refused before anything changed on it (its lock was taken)
      if (failed.length > 0 && failed.every((h) => h.blocked))
        throw new BlockedError(failureMessage(result));
      throw new OperationError(failureMessage(result));
    }
  } finally {
    interrupt.dispose();
    await fleet.close();
  }
}
