import type { TargetState } from '../balancer/balancer.js';
import type { FailOpenMinimum } from '../balancer/fail-open.js';
import { stateAt } from '../balancer/set-states.js';
import { kindNamed } from '../balancer/kinds.js';
import { envelope, membersOf, nameError } from '../balancer/set.js';
import { settingsOfEach } from '../balancer/each-settings.js';
import type { HealthCheckSettings, HostConfig } from '../config/types.js';
import { BlockedError, InvariantError, hostError } from '../errors.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import { hostNodeProblem } from '../agent-client/node-check.js';
import type { HostStatus } from '../protocol/results.js';
import {
  modelsPerBalancer,
  slowestModel,
  timingBaseFromConfig,
  type BalancerModel,
  type TimingModel,
} from '../timing/index.js';
import { invariantKey } from '../timing/invariant-keys.js';
import { checkCapacityOnEach, type CapacityVerdict } from './capacity.js';
import { drainOwner, leftAloneLine } from './drain-owner.js';
import type { Plan } from './plan.js';
import { boundsOfBalancers, type Bounds } from './rotation.js';
import type { RolloutDeps } from './types.js';
import { preflightLines, type HostProblem } from './preflight-lines.js';
import {
  judgeReach,
  skippedLine,
  withoutHosts,
  type HostFailure,
  type SkippedHost,
} from './preflight-reach.js';

export interface Preflight {
  /** each the slowest of any balancer's: for what takes one set (the slow start) */
  readonly settings: HealthCheckSettings;
  /** the slowest balancer's model (every balancer's invariants were checked) */
  readonly model: TimingModel;
  /** the await bounds: each the largest of any balancer's */
  readonly bounds: Bounds;
  readonly agents: ReadonlyMap<string, HostAgent>;
  readonly statuses: ReadonlyMap<string, HostStatus>;
  readonly states: ReadonlyMap<string, TargetState>;
  /** each balancer's fail-open minimum (unhealthy-state routing) by its name, which the guard keeps */
  readonly failOpen: ReadonlyMap<string, FailOpenMinimum>;
  /** hosts of the plan left out, unreachable (rollout.unreachable: skip); the plan without them */
  readonly skipped: readonly SkippedHost[];
  readonly plan: Plan;
}

/**
 * Everything that can refuse a rollout, checked before any host changes:
 * the invariants against the balancer's real settings, every host reachable
 * with a node the agent runs on and our agent (deps.agent's clients refuse any other), no deploy already
 * running, and capacity for every wave.
 */
export async function preflight(
  fleetDeps: RolloutDeps,
  asked: Plan,
  { dryRun = false }: { dryRun?: boolean } = {},
): Promise<Preflight> {
  const { config, balancer } = fleetDeps;
  const each = await settingsOfEach(balancer);
  const failOpen = await failOpenOfEach(fleetDeps);
  const settings = envelope(each.map((b) => b.settings));
  const models = modelsPerBalancer(timingBaseFromConfig(config), each);
  checkInvariants(fleetDeps, models);
  const model = slowestModel(models).model;
  const bounds = boundsOfBalancers(each, config.drain);

  const { agents, statuses, failures } = await reachHosts(fleetDeps, asked.waves.flat());
  const reach = judgeReach(config.rollout, asked.waves.flat().length, failures);
  // one line per host: several unreachable hosts must not run together into one
  if (reach.problems.length > 0)
    throw new BlockedError(
      [...preflightLines(reach.problems), ...(reach.note ? [reach.note] : [])].join('\n'),
    );
  const { skipped } = reach;
  for (const s of skipped)
    fleetDeps.log.emit({
      level: 'warn',
      event: 'preflight.skip',
      host: s.host,
      message: skippedLine(s, asked.release),
      fields: { reason: s.reason },
    });
  const plan = withoutHosts(asked, skipped);
  // a skipped host is never counted as serving, whatever the balancer says of it
  const deps = notServing(fleetDeps, skipped);
  const hosts = plan.waves.flat();
  assertHostConfigs(deps, hosts, statuses);

  refuseHeldLocks(hosts, statuses);

  refuseOperatorDrains(deps, hosts, statuses);

  const states = await balancer.states(config.hosts.map((h) => h.target));
  checkRegistered(deps, hosts, states, statuses);
  // after the balancer's word: a target it has on another port says more than the host's.
  // A host with no release live serves nothing yet (a first deploy): nothing to ask.
  const serving = hosts.filter((h) => (statuses.get(h.name)?.release ?? null) !== null);
  await checkTargetPorts(deps, serving, agents);
  checkPlanCapacity(deps, plan, states, failOpen);
  // a dry run makes no call that writes, even one that changes nothing
  if (!dryRun) await proveRegister(deps, states);
  return { settings, model, bounds, agents, statuses, states, failOpen, skipped, plan };
}

/** Every host asked: its agent started, checked and asked its status; or why not. */
async function reachHosts(
  fleetDeps: RolloutDeps,
  hosts: readonly HostConfig[],
): Promise<{
  agents: Map<string, HostAgent>;
  statuses: Map<string, HostStatus>;
  failures: HostFailure[];
}> {
  const agents = new Map<string, HostAgent>();
  const statuses = new Map<string, HostStatus>();
  const failures: HostFailure[] = [];
  await Promise.all(
    hosts.map(async (host) => {
      try {
        const agent = await fleetDeps.agent(host);
        // before the agent runs at all: one built for Node 22.12 may not parse on an older node
        const oldNode = await hostNodeProblem(agent);
        if (oldNode) throw new BlockedError(`${host.name}: ${oldNode}`);
        // the agent that will hold this host's lock starts now (no lock yet): it checks it
        // is this deploy's agent, answers the status, and carries every later step
        await agent.openSession?.();
        const status = await agent.run('status', {});
        if (status.compose && 'error' in status.compose)
          throw new BlockedError(`${host.name}: ${status.compose.error}`);
        statuses.set(host.name, status);
        agents.set(host.name, agent);
      } catch (error) {
        failures.push({ host: host.name, error });
      }
    }),
  );
  return { agents, statuses, failures };
}

/** A host lock held by anything but a watchdog tick refuses the rollout, naming the holders. */
function refuseHeldLocks(
  hosts: readonly HostConfig[],
  statuses: ReadonlyMap<string, HostStatus>,
): void {
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
}

/** The deps of a rollout that left `skipped` out: the capacity guard counts them as not serving. */
export function notServing(deps: RolloutDeps, skipped: readonly SkippedHost[]): RolloutDeps {
  if (skipped.length === 0) return deps;
  return { ...deps, notServing: new Set(skipped.map((s) => s.host)) };
}

/** Each balancer's fail-open minimum (a kind that fails open), by its name: what the capacity guard keeps. */
export async function failOpenOfEach(deps: RolloutDeps): Promise<Map<string, FailOpenMinimum>> {
  const members = membersOf(deps.balancer);
  const found = await Promise.all(
    members.map(async (m) => {
      const minimum = await m.balancer.failOpenMinimum?.().catch((error: unknown) => {
        throw members.length > 1 ? nameError(m.name, error) : error;
      });
      return minimum ? [[m.name, minimum] as const] : [];
    }),
  );
  return new Map(found.flat());
}

/** Every invariant on every balancer: the slowest one does not stand for the others. */
function checkInvariants(deps: RolloutDeps, models: readonly BalancerModel[]): void {
  const several = models.length > 1;
  const on = (name: string) => (several ? ` on ${name}` : '');
  const broken: string[] = [];
  for (const { name, model } of models) {
    for (const inv of model.invariants.filter((i) => !i.ok)) {
      deps.log.emit({
        level: inv.severity === 'error' ? 'error' : 'warn',
        event: 'invariant',
        message: `${inv.id}${on(name)}: ${inv.message}`,
        fields: {
          id: inv.id,
          ...keyField(invariantKey(inv)),
          ...(several ? { balancer: name } : {}),
        },
      });
      if (inv.severity === 'error') broken.push(`${inv.id}${on(name)}`);
    }
  }
  if (broken.length === 0) return;
  const ids = [...new Set(broken.map((b) => b.split(' ')[0] ?? b))];
  throw new InvariantError(
    ids,
    `refusing to roll out: invariant ${broken.join(', ')} broken against the balancer's settings (see 'deploy check --live')`,
  );
}

/**
 * A host an operator drained (`deploy drain`) whose lease still runs is
 * someone's maintenance: the rollout leaves it alone and cannot deploy it
 * without undraining it, so a plan that has it is refused, one line per host;
 * leave it out with --hosts and the rest deploys with it counted out of
 * capacity (capacity-step.ts). A rollout's marker, or an operator's whose
 * lease ended, is a leftover the rollout repairs (handshake/repair.ts).
 */
function refuseOperatorDrains(
  deps: RolloutDeps,
  hosts: readonly HostConfig[],
  statuses: ReadonlyMap<string, HostStatus>,
): void {
  const now = deps.clock.now();
  const lines = hosts.flatMap((h) => {
    // a holder other than the watchdog was refused above; a watchdog's tick stands aside
    const marker = statuses.get(h.name)?.draining;
    if (!marker || drainOwner(marker, now) !== 'operator') return [];
    return [`preflight: ${leftAloneLine(h.name, marker)}`];
  });
  if (lines.length > 0) throw new BlockedError(lines.join('\n'));
}

/**
 * A host whose target the balancer does not have cannot be drained through
 * it: its drain would wait for nothing and its traffic goes elsewhere. With
 * drain.method deregister, a host that carries our drain marker is one a
 * rollout deregistered and left: its repair registers it again.
 */
function checkRegistered(
  deps: RolloutDeps,
  hosts: readonly HostConfig[],
  states: ReadonlyMap<string, TargetState>,
  statuses: ReadonlyMap<string, HostStatus>,
): void {
  const deregisters = deps.config.drain.method === 'deregister';
  const members = membersOf(deps.balancer);
  const lines = members.flatMap((m) => {
    const at = (h: HostConfig) => stateAt(states.get(h.target), m.name);
    const missing = hosts.filter((h) => {
      const why = at(h)?.unregistered;
      if (why === 'absent' && deregisters && statuses.get(h.name)?.draining) return false;
      return why !== undefined;
    });
    if (missing.length === 0) return [];
    const named = missing.map(
      (h) =>
        `${h.name} (target ${m.targets.get(h.target) ?? h.target}: ${at(h)?.reason ?? 'not registered'})`,
    );
    const where = members.length > 1 ? `balancer ${m.name}'s` : "the balancer's";
    return [`preflight: not registered in ${where} target group: ${named.join(', ')}`];
  });
  if (lines.length === 0) return;
  const fix =
    members.length > 1
      ? "register it there or correct hosts[].target or that balancer's targets"
      : 'register it there or correct hosts[].target';
  throw new BlockedError(`${lines.join('\n')}; ${fix}; nothing was drained`);
}

/**
 * drain.method deregister puts every host back with RegisterTargets: a policy
 * without it would leave the first host deregistered. Registering a target
 * that is registered and healthy already changes nothing, so it proves the
 * permission before anything is drained. With no healthy target there is
 * nothing to prove it with: the undrain will say so if it is refused.
 */
async function proveRegister(
  deps: RolloutDeps,
  states: ReadonlyMap<string, TargetState>,
): Promise<void> {
  const { balancer, config } = deps;
  if (config.drain.method !== 'deregister' || !balancer.proveRegister) return;
  const healthy = config.hosts.find((h) => {
    const s = states.get(h.target);
    return s?.state === 'healthy' && s.unregistered === undefined;
  });
  if (healthy) await balancer.proveRegister(healthy.target);
}

function checkPlanCapacity(
  deps: RolloutDeps,
  plan: Plan,
  states: ReadonlyMap<string, TargetState>,
  failOpen: ReadonlyMap<string, FailOpenMinimum>,
): void {
  for (const wave of plan.waves) {
    const verdict = waveCapacity(deps, wave, states, failOpen);
    if (!verdict.ok)
      throw new BlockedError(`capacity guard: ${verdict.message}; nothing was drained`);
  }
}

/** The capacity guard for one wave against the whole fleet's states. */
export function waveCapacity(
  deps: RolloutDeps,
  wave: readonly HostConfig[],
  states: ReadonlyMap<string, TargetState>,
  failOpen: ReadonlyMap<string, FailOpenMinimum>,
): CapacityVerdict {
  const out = deps.notServing;
  const all = targets(out ? deps.config.hosts.filter((h) => !out.has(h.name)) : deps.config.hosts);
  const { minHealthy, allowDowntime } = deps.config.rollout;
  const names = membersOf(deps.balancer).map((m) => m.name);
  // rollout.allow_downtime: the operator accepted that nothing serves during a batch
  if (allowDowntime)
    return checkCapacityOnEach(
      targets(wave),
      all,
      states,
      0,
      names.map((name) => ({ name })),
    );
  const guarded = names.map((name) => {
    const minimum = failOpen.get(name);
    return minimum ? { name, failOpen: minimum } : { name };
  });
  return checkCapacityOnEach(targets(wave), all, states, minHealthy, guarded);
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * A balancer target that names its port (as its kind reads it, like
 * `ip:port` or `instance:port`) on a port nothing on the host listens on would be drained
 * and then never come back healthy: a typo in a `targets:` map. Each host's
 * agent reads its own socket table; a host that cannot tell is not refused,
 * nor a target without a port (the target group's port, which deploy.yml does
 * not know), nor a host with no release live (nothing listens before its first
 * deploy).
 */
async function checkTargetPorts(
  deps: RolloutDeps,
  hosts: readonly HostConfig[],
  agents: ReadonlyMap<string, HostAgent>,
): Promise<void> {
  const all = membersOf(deps.balancer);
  const kinds = await Promise.all(all.map((m) => kindNamed(m.balancer.kind)));
  const members = all.flatMap((m, i) => {
    const targetPort = kinds[i]?.targetPort;
    return targetPort ? [{ ...m, targetPort }] : [];
  });
  if (members.length === 0) return;
  const problems: HostProblem[] = [];
  await Promise.all(
    hosts.map(async (host) => {
      const agent = agents.get(host.name);
      const asked = members.flatMap((m) => {
        const target = m.targets.get(host.target) ?? host.target;
        const named = m.targetPort(target);
        if (named === undefined) return [];
        const { id, port } = named;
        const ask = IPV4.test(id) ? `${id}:${port}` : String(port);
        return [{ balancer: m.name, target, port, ask }];
      });
      if (!agent || asked.length === 0) return;
      try {
        const answer = await agent.run('listening', {
          targets: [...new Set(asked.map((a) => a.ask))].join(','),
        });
        for (const a of asked)
          if (answer[a.ask] === false)
            problems.push({
              host: host.name,
              reason: `nothing listens on port ${a.port}, where balancer ${a.balancer} sends its target ${a.target}; fix the port in deploy.yml (draining it would wait for a health check that never passes)`,
            });
      } catch (error) {
        problems.push({ host: host.name, reason: hostError(host.name, error) });
      }
    }),
  );
  if (problems.length > 0) throw new BlockedError(preflightLines(problems).join('\n'));
}

export function targets(hosts: readonly HostConfig[]): string[] {
  return hosts.map((h) => h.target);
}

/**
 * The agent verifies, proves stops and expects releases by the host config
 * `deploy setup` published, not by deploy.yml: a change to deploy.yml that was
 * never set up (a new expect_release, another stop command) would silently not
 * apply. Refuse before anything changes.
 */
function assertHostConfigs(
  deps: RolloutDeps,
  hosts: readonly HostConfig[],
  statuses: ReadonlyMap<string, HostStatus>,
): void {
  const expected = deps.hostConfigSha256;
  if (expected === undefined) return;
  // an agent too old to say is refused by its sha256 before this (--expect-agent)
  const stale = hosts.filter((h) => {
    const seen = statuses.get(h.name)?.config_sha256;
    return seen !== undefined && seen !== expected;
  });
  if (stale.length === 0) return;
  throw new BlockedError(
    `preflight: the host config on ${stale.map((h) => h.name).join(', ')} is not this deploy.yml's (changed since the last 'deploy setup'); run 'deploy setup' so the hosts verify and stop by what deploy.yml says`,
  );
}

const keyField = (key: string | undefined) => (key === undefined ? {} : { key });
