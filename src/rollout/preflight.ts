import type { TargetState } from '../balancer/balancer.js';
import type { HealthCheckSettings, HostConfig } from '../config/types.js';
import { BlockedError, HandoffError, InvariantError } from '../errors.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import type { HostStatus } from '../host/agent/types.js';
import { timingInputFromConfig, timingModel, type TimingModel } from '../timing/index.js';
import { checkCapacity } from './capacity.js';
import type { Plan } from './plan.js';
import type { RolloutDeps } from './types.js';

export interface Preflight {
  readonly settings: HealthCheckSettings;
  readonly model: TimingModel;
  readonly agents: ReadonlyMap<string, HostAgent>;
  readonly statuses: ReadonlyMap<string, HostStatus>;
  readonly states: ReadonlyMap<string, TargetState>;
}

/**
 * Everything that can refuse a rollout, checked before any host changes:
 * the invariants against the balancer's real settings, every host reachable
 * with our agent (deps.agent's clients refuse any other), no deploy already
 * running, and capacity for every wave.
 */
export async function preflight(deps: RolloutDeps, plan: Plan): Promise<Preflight> {
  const { config, balancer, log } = deps;
  const settings = await balancer.settings();
  const model = timingModel({
    ...timingInputFromConfig(config, settings),
    hosts: config.hosts.length,
  });
  for (const inv of model.invariants.filter((i) => !i.ok)) {
    log.emit({
      level: inv.severity === 'error' ? 'error' : 'warn',
      event: 'invariant',
      message: `${inv.id}: ${inv.message}`,
    });
  }
  const broken = model.invariants.filter((i) => !i.ok && i.severity === 'error');
  if (broken.length > 0) {
    throw new InvariantError(
      broken.map((i) => i.id),
      `refusing to roll out: invariant ${broken.map((i) => i.id).join(', ')} broken against the balancer's settings (see 'deploy check --live')`,
    );
  }

  const hosts = plan.waves.flat();
  const agents = new Map<string, HostAgent>();
  const statuses = new Map<string, HostStatus>();
  const problems: string[] = [];
  await Promise.all(
    hosts.map(async (host) => {
      try {
        const agent = await deps.agent(host);
        // the agent that will hold this host's lock starts now (no lock yet): it checks it
        // is this deploy's agent, answers the status, and carries every later step
        await agent.openSession?.();
        const status = await agent.status();
        if (status.compose && 'error' in status.compose)
          throw new BlockedError(`${host.name}: ${status.compose.error}`);
        statuses.set(host.name, status);
        agents.set(host.name, agent);
      } catch (error) {
        problems.push(
          error instanceof HandoffError || error instanceof Error ? error.message : String(error),
        );
      }
    }),
  );
  if (problems.length > 0) throw new BlockedError(`preflight: ${problems.sort().join('; ')}`);

  // a watchdog tick holds the lock for a moment and stands aside for us (lock-intent)
  const held = hosts.filter((h) => {
    const lock = statuses.get(h.name)?.lock;
    return lock?.locked && lock.holder?.what !== 'watchdog';
  });
  if (held.length > 0) {
    const who = held.map(
      (h) => `${h.name} (${statuses.get(h.name)?.lock.holder?.what ?? 'unknown holder'})`,
    );
    throw new BlockedError(
      `preflight: host lock held on ${who.join(', ')}; another deploy or a setup script is running`,
    );
  }

  const states = await balancer.states(config.hosts.map((h) => h.target));
  checkPlanCapacity(deps, plan, states);
  return { settings, model, agents, statuses, states };
}

function checkPlanCapacity(
  deps: RolloutDeps,
  plan: Plan,
  states: ReadonlyMap<string, TargetState>,
): void {
  const all = deps.config.hosts.map((h) => h.target);
  for (const wave of plan.waves) {
    const verdict = checkCapacity(targets(wave), all, states, deps.config.rollout.minHealthy);
    if (!verdict.ok)
      throw new BlockedError(`capacity guard: ${verdict.message}; nothing was drained`);
  }
}

export function targets(hosts: readonly HostConfig[]): string[] {
  return hosts.map((h) => h.target);
}
