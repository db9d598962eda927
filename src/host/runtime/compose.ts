import { OperationError } from '../../errors.js';
import type { HostExec } from '../exec.js';
import { assertPublished, lastLine } from './common.js';
import {
  composeConfig,
  composeLogs,
  composePs,
  composePull,
  composeRestart,
  composeStop,
  composeUp,
  imageInspect,
  type ComposeTarget,
} from './compose-argv.js';
import { discoverComposeCommand } from './compose-command.js';
import { composeImages } from './compose-images.js';
import { composeServiceStatus, parseComposePs } from './compose-ps.js';
import type {
  LogsCommand,
  LogsOptions,
  Runtime,
  RuntimeCallOptions,
  RuntimeSettings,
  ServiceStatus,
} from './runtime.js';

/** The compose runtime: the argv builders of compose-argv.ts, run through the host executor. */
export class ComposeRuntime implements Runtime {
  private command: Promise<readonly string[]> | undefined;

  constructor(
    private readonly settings: RuntimeSettings,
    readonly release: string,
    private readonly exec: HostExec,
  ) {}

  /** the compose command this host answers to; found once per runtime (compose-command.ts) */
  composeCommand(): Promise<readonly string[]> {
    const { runtime } = this.settings;
    const configured = runtime.kind === 'compose' ? runtime.composeCommand : undefined;
    this.command ??= discoverComposeCommand(this.exec, configured);
    return this.command;
  }

  /**
   * Pull, then make sure every image is really on the host: a pull that
   * cannot reach a registry is not always an error (docker-compose 1.x
   * against Podman says `done`), and a missing image found here fails the
   * host before it is drained, not at `up` while it is out of rotation.
   */
  async prepare(release: string, options: RuntimeCallOptions = {}): Promise<void> {
    await assertPublished(this.settings.root, release);
    const target = await this.target(release);
    const { onOutput, ...bounds } = options;
    const pull = await this.exec(composePull(target), {
      ...bounds,
      ...(onOutput ? { onLine: onOutput } : {}),
    });
    const config = await this.run('config', composeConfig(target), bounds);
    for (const image of await composeImages(config)) {
      const r = await this.exec(imageInspect(target.command, image), bounds);
      if (r.code !== 0 || r.timedOut) {
        // a pull that said `done` for it says nothing: the inspect's answer does
        const why = pull.code !== 0 ? lastLine(pull.stderr) : lastLine(r.stderr);
        throw new OperationError(
          `image ${image} cannot be pulled and is not on this host${why ? `: ${why}` : ''}`,
        );
      }
    }
    if (pull.code !== 0)
      throw new OperationError(`compose pull failed (exit ${pull.code}): ${lastLine(pull.stderr)}`);
  }

  async start(service?: string, options: RuntimeCallOptions = {}): Promise<void> {
    await this.run(`up ${service ?? 'all'}`, composeUp(await this.target(), service), options);
  }

  async stop(service?: string, options: RuntimeCallOptions = {}): Promise<void> {
    const argv = composeStop(await this.target(), this.settings.stopTimeout, service);
    await this.run(`stop ${service ?? 'all'}`, argv, options);
  }

  async restart(service: string, options: RuntimeCallOptions = {}): Promise<void> {
    const argv = composeRestart(await this.target(), this.settings.stopTimeout, service);
    await this.run(`restart ${service}`, argv, options);
  }

  async status(service: string, options: RuntimeCallOptions = {}): Promise<ServiceStatus> {
    const r = await this.exec(composePs(await this.target(), service), options);
    if (r.timedOut) return { state: 'unknown', detail: 'timeout' };
    if (r.code !== 0) return { state: 'unknown', detail: `ps-exit-${r.code}` };
    const containers = parseComposePs(r.stdout, this.settings.project);
    if (!containers) return { state: 'unknown', detail: 'ps-unreadable' };
    return composeServiceStatus(containers, service);
  }

  async logsCommands(options: LogsOptions): Promise<LogsCommand[]> {
    return [{ argv: composeLogs(await this.target(), options) }];
  }

  private async target(release = this.release): Promise<ComposeTarget> {
    return {
      command: await this.composeCommand(),
      root: this.settings.root,
      release,
      project: this.settings.project,
    };
  }

  private async run(what: string, argv: string[], options: RuntimeCallOptions): Promise<string> {
    const r = await this.exec(argv, options);
    if (r.timedOut)
      throw new OperationError(`compose ${what} did not finish within ${options.timeoutMs} ms`);
    if (r.code !== 0) {
      const why = lastLine(r.stderr);
      throw new OperationError(`compose ${what} failed (exit ${r.code})${why ? `: ${why}` : ''}`);
    }
    return r.stdout;
  }
}
