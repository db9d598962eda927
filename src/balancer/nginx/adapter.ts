import type { HealthCheckSettings } from '../../config/types.js';
import type { NginxBalancerConfig } from './config/entry.js';
import { ConfigError, OperationError } from '../../errors.js';
import type { Balancer, TargetState } from '../balancer.js';
import { localNginxHost, type NginxHost } from './host.js';
import { DEBIAN_MAIN_CONFIG, readMainConfig, type MainConfig } from './main-config.js';
import { nginxSettings } from './settings.js';
import { markDown, readUpstream, type UpstreamServer } from './upstream.js';
import { listWorkers, nginxArgv, parseWorkers, type Worker } from './workers.js';

/**
 * nginx as a balancer: open-source nginx has no runtime API, so a drain marks
 * the host's `server` line `down` in the named upstream and reloads. The
 * reload starts new workers without the host and tells the old ones to finish
 * what they hold; the host is *out* only once every worker that ran before the
 * reload has exited (bounded by worker_shutdown_timeout).
 */
export class NginxBalancer implements Balancer {
  readonly kind = 'nginx';
  /** the workers that ran before this adapter's last reload: until they are gone, it has not taken */
  private before: ReadonlySet<number> | undefined;

  constructor(
    private readonly config: NginxBalancerConfig,
    private readonly host: NginxHost = localNginxHost,
  ) {}

  async settings(): Promise<HealthCheckSettings> {
    const [main, upstream] = await Promise.all([this.main(), this.upstream()]);
    const settings = nginxSettings(main, upstream);
    if ('error' in settings) throw this.configProblem('config', settings.error);
    return settings;
  }

  /** the main config as read where nginx runs: `deploy check --live` warns from it */
  async configText(): Promise<string> {
    return this.host.read(this.config.mainConfig ?? DEBIAN_MAIN_CONFIG);
  }

  async states(targets: readonly string[]): Promise<ReadonlyMap<string, TargetState>> {
    const [upstream, workers] = await Promise.all([this.upstream(), this.workers()]);
    const before = this.before;
    // no reload of ours to watch (another process drained it): any old worker still finishing
    const old = workers.filter((w) => (before ? before.has(w.pid) : w.shuttingDown));
    const fresh = !before || workers.some((w) => !before.has(w.pid) && !w.shuttingDown);
    const result = new Map<string, TargetState>();
    for (const target of targets) {
      const server = upstream.servers.find((s) => s.address === target);
      result.set(target, this.stateOf(target, server, old.length, fresh));
    }
    return result;
  }

  private stateOf(
    target: string,
    server: UpstreamServer | undefined,
    old: number,
    fresh: boolean,
  ): TargetState {
    const { upstream } = this.config;
    if (!server)
      return {
        target,
        state: 'unused',
        inRotation: false,
        unregistered: 'absent',
        reason: `no server ${target} in upstream ${upstream}`,
      };
    if (server.down && old > 0)
      return {
        target,
        state: 'draining',
        inRotation: true,
        reason: `down; ${old} worker(s) from before the reload still finishing`,
      };
    if (server.down)
      return { target, state: 'unused', inRotation: false, reason: `down in upstream ${upstream}` };
    if (!fresh)
      return { target, state: 'initial', inRotation: false, reason: 'reload not taken yet' };
    return { target, state: 'healthy', inRotation: true };
  }

  deregister(target: string): Promise<void> {
    return this.edit(target, true);
  }

  register(target: string): Promise<void> {
    return this.edit(target, false);
  }

  close(): Promise<void> {
    return this.host.close();
  }

  /**
   * Under the file's lock: rewrite, `nginx -t`, and only then reload; a failed
   * test puts the file back as it was, so nginx and the file never disagree.
   */
  private async edit(target: string, down: boolean): Promise<void> {
    const { config: file, upstream } = this.config;
    await this.host.locked(file, async () => {
      const original = await this.host.read(file);
      const rewrite = markDown(original, upstream, target, down);
      if (!rewrite.ok)
        throw this.configProblem(
          'config',
          `${file}: ${rewrite.reason}; check hosts[].target (ADDRESS:PORT as the server line writes it)`,
        );
      if (rewrite.changed) await this.host.write(file, rewrite.text);
      const test = await this.host.run(nginxArgv(this.config.mainConfig, '-t', '-q'));
      if (test.code !== 0) {
        if (rewrite.changed) await this.host.write(file, original);
        throw new OperationError(
          `nginx -t failed with ${target} marked ${down ? 'down' : 'up'} on ${this.host.where}, so nginx was not reloaded and ${file} is as it was: ${firstLine(test.stderr || test.stdout)}`,
        );
      }
      const master = await this.masterPid(await this.main());
      const before = parseWorkers((await this.host.run(listWorkers(master))).stdout);
      const reload = await this.host.run(nginxArgv(this.config.mainConfig, '-s', 'reload'));
      if (reload.code !== 0) {
        if (rewrite.changed) await this.host.write(file, original);
        throw new OperationError(
          `nginx -s reload failed on ${this.host.where} (${file} put back): ${firstLine(reload.stderr)}`,
        );
      }
      this.before = new Set(before.map((w) => w.pid));
    });
  }

  private async upstream() {
    const { config: file, upstream } = this.config;
    const parsed = readUpstream(await this.host.read(file), upstream);
    if (!parsed.ok) throw this.configProblem('config', `${file}: ${parsed.reason}`);
    return parsed;
  }

  private async main(): Promise<MainConfig> {
    const file = this.config.mainConfig ?? DEBIAN_MAIN_CONFIG;
    const main = readMainConfig(await this.host.read(file));
    if ('error' in main) throw this.configProblem('main_config', `${file}: ${main.error}`);
    return main;
  }

  private async workers(): Promise<Worker[]> {
    const master = await this.masterPid(await this.main());
    const ps = await this.host.run(listWorkers(master));
    // ps exits 1 when the master has no children: nginx is stopping, or the pid is stale
    if (ps.code !== 0 && ps.stdout.trim() === '')
      throw new OperationError(
        `nginx master ${master} on ${this.host.where} has no workers: is nginx running?`,
      );
    return parseWorkers(ps.stdout);
  }

  private async masterPid(main: MainConfig): Promise<number> {
    const text = (await this.host.read(main.pidFile)).trim();
    if (!/^\d+$/.test(text))
      throw new OperationError(`nginx pid file ${main.pidFile} holds no pid: is nginx running?`);
    return Number(text);
  }

  private configProblem(key: string, message: string): ConfigError {
    return new ConfigError([{ path: `balancer.${key}`, message }]);
  }
}

function firstLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.replace(/^nginx: /, '') ?? 'no output'
  );
}
