import { readFile } from 'node:fs/promises';
import { BalancerHost } from '../balancer-host.js';
import type { HaproxyBalancerConfig } from './config/entry.js';
import { ConfigError, OperationError } from '../../errors.js';
import { FreshRead } from '../../fresh-read.js';
import type { Balancer, BalancerDeps, BalancerReload, TargetState } from '../balancer.js';
import { describeAddress, parseSocketAddress, type SocketAddress } from './address.js';
import { runCommands } from './batch.js';
import * as cmd from './commands.js';
import { readBackendChecks } from './config-file.js';
import { garbage, runCommand, type RuntimeApiOptions } from './runtime-api.js';
import { parseShowInfo, ReloadWatch, type ProcessInfo } from './reload-watch.js';
import { parseServersState } from './servers-state.js';
import { combineSettings, type HaproxyHealthCheck, type SettingsSource } from './settings.js';
import { parseStatCsv } from './stat-csv.js';
import { toTargetState } from './target-state.js';

// what haproxy answers when the proxy named in a command does not exist
const noBackend = /^(Can't find backend\.|No such proxy\.|No such backend\.)/;

/**
 * HAProxy through its runtime API: a connection per command, but one for the
 * states read's three (it is on every host's path, twice with a pair).
 */
export class HaproxyBalancer implements Balancer {
  readonly kind = 'haproxy';
  private readonly address: SocketAddress;
  /** the runtime states handoff set and has not taken back: what a reload forgets */
  private readonly held = new Map<string, cmd.AdminState>();
  private readonly reload: ReloadWatch;
  private readonly reloadListeners = new Set<(reload: BalancerReload) => void>();
  /** `ssh:` set: the host the socket and config file are on */
  private readonly remote: BalancerHost | undefined;

  constructor(
    private readonly config: HaproxyBalancerConfig,
    private readonly options: RuntimeApiOptions = {},
    private readonly deps?: BalancerDeps,
  ) {
    this.remote = config.ssh && new BalancerHost(config.ssh, deps?.ssh, config.socket);
    this.address = this.remote ? this.overSsh(this.remote) : parseSocketAddress(config.socket);
    cmd.checkName(config.backend, 'balancer.backend');
    this.reload = new ReloadWatch(
      {
        info: async () => parseShowInfo(await runCommand(this.address, cmd.showInfo(), options)),
        reassert: (before, now) => this.reassert(before, now),
        everyMs: options.reloadPollMs ?? 250,
      },
      deps,
    );
  }

  /** the runtime API as this balancer reaches it: the receipt reads its counters through the same connection */
  get runtime(): SocketAddress {
    return this.address;
  }

  async states(targets: readonly string[]): Promise<ReadonlyMap<string, TargetState>> {
    const { servers, stats } = await this.rows.get(targets);
    const result = new Map<string, TargetState>();
    for (const target of targets)
      result.set(
        target,
        toTargetState(target, this.config.backend, servers.get(target), stats.get(target)),
      );
    return result;
  }

  /**
   * the backend's rows by server; every host's poll of the moment shares one,
   * which parses the rows of the servers those polls asked for, not the others'
   */
  private readonly rows = new FreshRead(async (wanted: ReadonlySet<string>) => {
    const { backend } = this.config;
    const showServers = cmd.showServersState(backend);
    const showStat = cmd.showStat(backend);
    // show info first, for the reload watch: a reload between two polls is a new pid
    const [, servers, stats] = await this.reload.checkWith(
      () => runCommands(this.address, [cmd.showInfo(), showServers, showStat], this.options),
      ([info]) => parseShowInfo(info),
    );
    // when both fail, the first command's failure is the one reported
    const serverRows = await this.rowsOf(showServers, servers, (t) => parseServersState(t, wanted));
    const statRows = await this.rowsOf(showStat, stats, (t) => parseStatCsv(t, wanted));
    // by name: the guard asks for every target, and a find per target was quadratic
    return { servers: firstByServer(serverRows), stats: firstByServer(statRows) };
  });

  async settings(): Promise<HaproxyHealthCheck> {
    const command = cmd.showStat(this.config.backend);
    const answer = await runCommand(this.address, command, this.options);
    const live = await this.rowsOf(command, answer, parseStatCsv);
    const combined = combineSettings(this.config.backend, live, await this.source());
    if (!combined.ok) {
      throw new OperationError(
        `haproxy settings: ${combined.reason}: reload haproxy, or point balancer.config at the file it runs`,
      );
    }
    return combined.settings;
  }

  async configText(): Promise<string | undefined> {
    const file = this.config.config;
    return file === undefined ? undefined : this.readConfig(file);
  }

  async deregister(target: string): Promise<void> {
    cmd.checkName(target, 'hosts[].target');
    // the process that takes the drain is the one a later reload replaces
    await this.reload.check();
    await this.setState(target, 'drain');
    this.held.set(target, 'drain');
    this.reload.hold();
  }

  async register(target: string): Promise<void> {
    await this.setState(target, 'ready');
    this.held.delete(target);
    if (this.held.size === 0) this.reload.release();
  }

  onReload(listener: (reload: BalancerReload) => void): () => void {
    this.reloadListeners.add(listener);
    return () => this.reloadListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.reload.release();
    await this.remote?.close();
  }

  private overSsh(remote: BalancerHost): SocketAddress {
    const path = this.config.socket;
    if (path.startsWith('tcp://'))
      throw new ConfigError([
        {
          path: 'balancer.socket',
          message: `with ssh, the socket is the unix socket's path on ${remote.where} (its 'stats socket' line), not ${path}`,
        },
      ]);
    return {
      kind: 'ssh',
      host: remote.where,
      path,
      open: async () => (await remote.connect()).openStreamLocal(path),
    };
  }

  /** the config file's text, read here or on the balancer's host */
  private async readConfig(file: string): Promise<string> {
    if (this.remote) {
      const r = await this.remote.read(file);
      if (r.ok) return r.text;
      throw new ConfigError([
        {
          path: 'balancer.config',
          message: `cannot read haproxy config ${file} on ${this.remote.where}: ${r.reason}`,
        },
      ]);
    }
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ConfigError([
        { path: 'balancer.config', message: `cannot read haproxy config ${file}: ${code}` },
      ]);
    }
  }

  private async reassert(before: ProcessInfo, now: ProcessInfo): Promise<void> {
    const servers = [...this.held];
    const what = servers.map(([server, state]) => `${server} ${state}`).join(', ');
    const seen = `haproxy ${this.config.socket} reloaded (pid ${before.pid} → ${now.pid}, up ${now.uptimeSec}s)`;
    this.deps?.log.emit({
      level: 'warn',
      event: 'balancer.reload',
      message: `${seen}${what ? `: setting ${what} again; configure server-state-file and load-server-state-from-file so a reload keeps it (docs/balancers.md)` : ''}`,
      fields: { socket: this.config.socket, pid_before: before.pid, pid: now.pid, held: what },
    });
    for (const [server, state] of servers) await this.setState(server, state);
    const message = `${seen}${what ? `; set ${what} again` : ''}`;
    for (const listener of this.reloadListeners) listener({ message });
  }

  private async setState(target: string, state: cmd.AdminState): Promise<void> {
    const command = cmd.setServerState(this.config.backend, target, state);
    const raw = await runCommand(this.address, command, this.options);
    const answer = raw.trim();
    // haproxy acknowledges with an empty line; a peer that closes without a word is not haproxy
    if (raw.length > 0 && answer === '') return;
    if (noBackend.test(answer)) throw await this.missingBackend();
    if (answer.startsWith('No such server')) {
      throw new OperationError(
        `haproxy has no server ${target} in backend ${this.config.backend}: check hosts[].target`,
      );
    }
    throw this.refused(command, answer);
  }

  private async source(): Promise<SettingsSource> {
    const { config: file, healthCheck, backend } = this.config;
    if (file === undefined) {
      if (healthCheck) return { kind: 'deploy.yml', healthCheck };
      throw new ConfigError([
        {
          path: 'balancer.config',
          message:
            "haproxy's runtime API does not report 'inter' or 'timeout check': set balancer.config to the haproxy config file (or write balancer.interval and balancer.timeout in deploy.yml)",
        },
      ]);
    }
    const text = await this.readConfig(file);
    const parsed = readBackendChecks(text, backend);
    if (!parsed.ok) {
      throw new ConfigError([{ path: 'balancer.config', message: `${file}: ${parsed.reason}` }]);
    }
    return { kind: 'file', path: file, checks: parsed.checks };
  }

  /** the rows of a command's answer, or the error that says why there are none */
  private async rowsOf<T>(
    command: string,
    answer: string,
    parse: (text: string) => { ok: true; rows: T[] } | { ok: false; reason: string },
  ): Promise<T[]> {
    const parsed = parse(answer);
    if (parsed.ok) return parsed.rows;
    if (noBackend.test(answer.trim())) throw await this.missingBackend();
    throw this.refused(command, answer);
  }

  private refused(command: string, answer: string): Error {
    if (/^Permission denied/.test(answer.trim())) {
      return new OperationError(
        `haproxy socket ${describeAddress(this.address)} refused '${command}': its 'stats socket' line needs 'level admin'`,
      );
    }
    return garbage(this.address, command, answer);
  }

  private async missingBackend(): Promise<ConfigError> {
    const answer = await runCommand(this.address, cmd.showBackend(), this.options).catch(() => '');
    const names = answer
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    const known = names.length > 0 ? ` (it has: ${names.join(', ')})` : '';
    return new ConfigError([
      {
        path: 'balancer.backend',
        message: `haproxy has no backend ${this.config.backend}${known}`,
      },
    ]);
  }
}

/** each server's first row, as `find` would give it */
function firstByServer<R extends { readonly server: string }>(rows: readonly R[]): Map<string, R> {
  const by = new Map<string, R>();
  for (const row of rows) if (!by.has(row.server)) by.set(row.server, row);
  return by;
}
