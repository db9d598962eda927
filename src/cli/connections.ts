import { hostname, userInfo } from 'node:os';
import type { Balancer } from '../balancer/balancer.js';
import { systemClock } from '../clock.js';
import type { Config, HostConfig } from '../config/types.js';
import { AgentClient } from '../agent-client/client.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import type { Log } from '../log.js';
import { ConnectionSlots } from '../remote/connection-slots.js';
import { PooledTransport } from '../remote/pooled-transport.js';
import type { Transport } from '../remote/transport.js';
import { destinationOf, type ConfigFlags } from './config-flag.js';
import { fitHeapToFleet } from './heap.js';

/** Where `deploy setup` publishes the host config on every host. */
export function hostConfigPath(config: Config): string {
  return `/etc/handoff/${config.service}.json`;
}

/**
 * deploy.yml as `deploy setup` publishes it to the hosts: without the
 * operator's HANDOFF_* overrides, which stay on the operator's machine (the
 * host's cron has its own environment).
 */
export async function plainConfig(flags: ConfigFlags): Promise<Config> {
  const { loadConfig } = await import('../config/load.js');
  return loadConfig(flags.config, { env: plainEnv(), ...destinationOf(flags) });
}

/** The environment a plain config is read with: HOME for `~`, no HANDOFF_* override. */
export function plainEnv(): NodeJS.ProcessEnv {
  return process.env.HOME ? { HOME: process.env.HOME } : {};
}

export function whoAmI(): string {
  const user = process.env.HANDOFF_WHO ?? process.env.GITHUB_ACTOR ?? safeUser();
  return `${user}@${hostname()}`;
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * The orchestrator's view of the fleet: one SSH connection per host, opened on
 * first use and reused for every step, at most ssh.max_connections at once
 * (the others queue; an idle one gives its slot up); one balancer. `close()`
 * ends them all.
 */
export class Connections {
  private readonly transports = new Map<string, PooledTransport>();
  private readonly slots: ConnectionSlots;
  private balancerPromise: Promise<Balancer> | undefined;
  private readonly agents = new Map<string, AgentClient>();

  /**
   * `expectedAgent`: the sha256 of this deploy's agent; a host whose agent
   * differs refuses the first operation asked of it (`--expect-agent`), before
   * it does anything, and the command exits 3. `deploy setup`,
   * which installs it, passes none.
   */
  constructor(
    readonly config: Config,
    private readonly log: Log,
    private readonly expectedAgent?: string,
    /** how one host's connection opens: SSH, or a test's fake */
    private readonly connect: (host: HostConfig) => Promise<Transport> = (host) =>
      import('../remote/ssh.js').then(({ connectSsh }) => connectSsh(host, config.ssh)),
  ) {
    this.slots = new ConnectionSlots(config.ssh.maxConnections);
    // a fleet of hundreds: V8 keeps its heap near what the rollout holds, not up to 4× it
    fitHeapToFleet(config.hosts.length);
  }

  /**
   * The SSH credentials every host's connection uses, checked once before any
   * host is asked: no key and no agent is the same bad setup for every
   * command (exit 2), never an "unreachable" host (exit 3) in some of them.
   */
  async checkAuth(): Promise<void> {
    const { resolveAuth } = await import('../remote/ssh-auth.js');
    await resolveAuth(this.config.ssh, process.env);
  }

  /** the host's transport; its connection opens with its first operation, in turn */
  transport(host: HostConfig): Promise<Transport> {
    let t = this.transports.get(host.name);
    if (!t) {
      t = new PooledTransport(host.name, () => this.connect(host), this.slots);
      this.transports.set(host.name, t);
    }
    return Promise.resolve(t);
  }

  /**
   * The host's agent, one per host for the whole command: the fleet lease,
   * preflight, the handshake and the end of a rollout share its session.
   */
  async agent(host: HostConfig): Promise<HostAgent & AgentClient> {
    const known = this.agents.get(host.name);
    if (known) return known;
    const transport = await this.transport(host);
    const paths = { agent: this.config.host.agent, hostConfig: hostConfigPath(this.config) };
    const identity = this.expectedAgent
      ? { expected: this.expectedAgent, verified: false }
      : undefined;
    // a session held from preflight keeps its connection: only when every host can have one
    const sessions = this.config.hosts.length <= this.config.ssh.maxConnections;
    const agent =
      this.agents.get(host.name) ??
      new AgentClient(transport, paths, this.log, identity, { sessions });
    this.agents.set(host.name, agent);
    return agent;
  }

  balancer(): Promise<Balancer> {
    this.balancerPromise ??= import('../balancer/create.js').then(({ createBalancer }) =>
      createBalancer(this.config, { clock: systemClock, log: this.log }),
    );
    return this.balancerPromise;
  }

  async close(): Promise<void> {
    // sessions end first (a holder that still holds the lock keeps it until its connection goes)
    for (const agent of this.agents.values()) agent.close();
    const all = [...this.transports.values()].map((t) => t.close().catch(() => undefined));
    if (this.balancerPromise)
      all.push(this.balancerPromise.then((b) => b.close()).catch(() => undefined));
    await Promise.all(all);
  }
}

/**
 * Ctrl-C and SIGTERM (CI's cancel: GitHub sends SIGINT, then SIGTERM, then
 * SIGKILL) and SIGHUP (a closed terminal or SSH session; some runners send it
 * to a `run:` step on a cancel instead of SIGINT) abort `signal`: the command stops at the next safe point, finishing
 * or undoing its current step. A second one aborts `urgent` as well: a verify
 * in flight is not waited for, the host is rolled back now.
 */
export function interruptSignal(log: Log): {
  signal: AbortSignal;
  urgent: AbortSignal;
  dispose(): void;
} {
  const controller = new AbortController();
  const urgent = new AbortController();
  const on = (name: NodeJS.Signals) => () => {
    if (urgent.signal.aborted) return;
    if (controller.signal.aborted) {
      log.emit({
        level: 'warn',
        event: 'interrupt',
        message: `${name} again: rolling back now, without waiting for the current check; hosts are not left drained`,
      });
      urgent.abort(new Error(name));
      return;
    }
    log.emit({
      level: 'warn',
      event: 'interrupt',
      message: `${name}: finishing the current step, then undoing it; hosts are not left drained (another signal: roll back now)`,
    });
    controller.abort(new Error(name));
  };
  const onInt = on('SIGINT');
  const onTerm = on('SIGTERM');
  // node's default for SIGHUP is to exit at once: hosts left drained and locked
  const onHup = on('SIGHUP');
  // a stopped orchestrator would hold host locks and drained hosts while it sleeps
  const onStop = (): void =>
    log.emit({
      level: 'warn',
      event: 'interrupt',
      message:
        'SIGTSTP: not stopping while hosts are locked or drained; Ctrl-C stops at the next safe point',
    });
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  process.on('SIGHUP', onHup);
  process.on('SIGTSTP', onStop);
  return {
    signal: controller.signal,
    urgent: urgent.signal,
    dispose: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      process.off('SIGHUP', onHup);
      process.off('SIGTSTP', onStop);
    },
  };
}
