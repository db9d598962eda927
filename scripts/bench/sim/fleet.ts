import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { SimHostState } from './agent.js';
import { startSimHaproxy, type SimChecks } from './haproxy.js';
import { hostKey, startSimSshHost, type SimFault, type SimSshHost } from './ssh-host.js';

export interface SimFleetOptions {
  readonly hosts: number;
  readonly workDir: string;
  /** round trip to every host; default 0 */
  readonly rttMs?: number;
  /** how long one service check of `verify` takes; default 0 */
  readonly checkMs?: number;
  /** the share of hosts (0 … 1) that misbehave in each way, the last hosts first */
  readonly faults?: Partial<Record<SimFault, number>>;
  /** ssh.max_connections; default the schema's */
  readonly maxConnections?: number;
  readonly checks?: SimChecks;
  /** rollout.min_healthy; default 1 */
  readonly minHealthy?: number;
  /** rollout.allow_downtime: what lets a fleet of one roll out */
  readonly allowDowntime?: boolean;
  /** rollout.unreachable: skip with this max_unreachable ("1%"): hosts that refuse are left out */
  readonly skipUnreachable?: string;
  /** deploy.yml's `lease:` block (default: none, the hosts store) */
  readonly lease?: Readonly<Record<string, unknown>>;
}

export interface SimFleet {
  /** deploy.yml pointing at the simulated hosts and balancer */
  readonly configPath: string;
  readonly states: readonly SimHostState[];
  /** which hosts misbehave, by name */
  readonly faults: ReadonlyMap<string, SimFault>;
  /** the balancer stand-in's commands answered so far, by their first two words */
  readonly balancerCommands: ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

/** which fault host i of n has: the last hosts, by the shares asked */
function faultOf(
  i: number,
  n: number,
  shares: SimFleetOptions['faults'] = {},
): SimFault | undefined {
  let from = n;
  for (const kind of ['refuse', 'timeout', 'garbage'] as const) {
    from -= Math.round((shares[kind] ?? 0) * n);
    if (i >= from) return kind;
  }
  return undefined;
}

/**
 * N simulated hosts in this process (ssh-host.ts: each its own ssh2 Server,
 * host key and port on 127.0.0.1), the HAProxy stand-in in front of them,
 * and the files the real CLI needs: a client key, known_hosts, deploy.yml.
 */
export async function startSimFleet(options: SimFleetOptions): Promise<SimFleet> {
  const { workDir, hosts: n } = options;
  const checks = options.checks ?? { intervalMs: 300, fall: 2, rise: 2 };
  await rm(workDir, { recursive: true, force: true });
  await mkdir(workDir, { recursive: true });
  const names = Array.from({ length: n }, (_, i) => `sim-${i + 1}`);
  const states = names.map((name) => new SimHostState(name, options.checkMs ?? 0, workDir));
  const faults = new Map<string, SimFault>();
  const servers: SimSshHost[] = [];
  const closeAll = () => Promise.all(servers.map((s) => s.close()));
  try {
    for (const [i, state] of states.entries()) {
      const fault = faultOf(i, n, options.faults);
      if (fault) faults.set(state.name, fault);
      servers.push(
        await startSimSshHost({ state, rttMs: options.rttMs ?? 0, ...(fault ? { fault } : {}) }),
      );
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  const haproxy = await startSimHaproxy(states, checks);
  const client = hostKey();
  const keyPath = path.join(workDir, 'client_key');
  const knownHosts = path.join(workDir, 'known_hosts');
  const configPath = path.join(workDir, 'deploy.yml');
  await writeFile(keyPath, client.private, { mode: 0o600 });
  await writeFile(
    knownHosts,
    servers.map((s) => `[127.0.0.1]:${s.port} ${s.publicKey}\n`).join(''),
  );
  await writeFile(
    configPath,
    simConfig(names, servers, haproxy, checks, keyPath, knownHosts, options),
  );
  return {
    configPath,
    states,
    faults,
    balancerCommands: haproxy.commands,
    stop: async () => {
      await closeAll();
      await haproxy.close();
    },
  };
}

function simConfig(
  names: readonly string[],
  servers: readonly SimSshHost[],
  haproxy: { socket: string; backend: string },
  checks: SimChecks,
  keyPath: string,
  knownHosts: string,
  options: SimFleetOptions,
): string {
  const doc = {
    service: 'sim',
    ssh: {
      user: 'sim',
      identity_file: keyPath,
      known_hosts: knownHosts,
      connect_timeout: '10s',
      ...(options.maxConnections ? { max_connections: options.maxConnections } : {}),
    },
    hosts: names.map((name, i) => ({
      name,
      address: '127.0.0.1',
      ssh_port: servers[i]?.port,
      target: name,
    })),
    balancer: {
      kind: 'haproxy',
      socket: haproxy.socket,
      backend: haproxy.backend,
      interval: `${checks.intervalMs}ms`,
      // at most drain.overlap (the drain-before-stop invariant)
      timeout: '50ms',
      unhealthy_threshold: checks.fall,
      healthy_threshold: checks.rise,
    },
    drain: { method: 'health', overlap: '100ms', max_request: '50ms', stop_timeout: '1s' },
    rollout: {
      batch: 1,
      min_healthy: options.minHealthy ?? 1,
      ...(options.allowDowntime ? { allow_downtime: true } : {}),
      ...(options.skipUnreachable
        ? { unreachable: 'skip', max_unreachable: options.skipUnreachable }
        : {}),
      verify_successes: 1,
      verify_timeout: '5s',
    },
    ...(options.lease ? { lease: options.lease } : {}),
    runtime: { kind: 'command' },
    services: [
      {
        name: 'app',
        check: { http: 'http://127.0.0.1:9/health', timeout: '1s' },
        start: 'true',
        stop: 'true',
        status: 'true',
      },
    ],
  };
  return `# generated by scripts/bench/sim for a simulated fleet\n${stringify(doc, { lineWidth: 0 })}`;
}
