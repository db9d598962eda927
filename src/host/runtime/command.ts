import type { ServiceConfig } from '../../config/types.js';
import { OperationError } from '../../errors.js';
import type { HostExec } from '../exec.js';
import { assertPublished, readReleaseVars } from './common.js';
import { commandInvocation, findService, type CommandStep } from './command-invocation.js';
import { commandLogs } from './command-logs.js';
import type {
  LogsCommand,
  LogsOptions,
  Runtime,
  RuntimeCallOptions,
  RuntimeSettings,
  ServiceStatus,
} from './runtime.js';

/** a status command that hangs must not hang the watchdog with it */
const defaultStatusTimeout = 30_000;

/**
 * The command runtime: each service's own start/stop/status shell commands
 * from deploy.yml. Status is the exit code of the status command (0 = running).
 */
export class CommandRuntime implements Runtime {
  private vars: Promise<Record<string, string>> | undefined;

  constructor(
    private readonly settings: RuntimeSettings,
    readonly release: string,
    private readonly exec: HostExec,
  ) {}

  /** the release's `.env`, exported to its commands (docs/configuration.md, env) */
  private releaseVars(): Promise<Record<string, string>> {
    this.vars ??= readReleaseVars(this.settings, this.release);
    return this.vars;
  }

  async logsCommands(options: LogsOptions): Promise<LogsCommand[]> {
    return commandLogs(this.settings, this.release, await this.releaseVars(), options);
  }

  async prepare(release: string): Promise<void> {
    await assertPublished(this.settings.root, release);
  }

  async start(service?: string, options: RuntimeCallOptions = {}): Promise<void> {
    for (const s of this.services(service)) await this.run(s, 'start', options);
  }

  async stop(service?: string, options: RuntimeCallOptions = {}): Promise<void> {
    // reverse order: workers started after what they depend on stop before it
    for (const s of this.services(service).reverse()) await this.run(s, 'stop', options);
  }

  async restart(service: string, options: RuntimeCallOptions = {}): Promise<void> {
    await this.stop(service, options);
    await this.start(service, options);
  }

  async status(service: string, options: RuntimeCallOptions = {}): Promise<ServiceStatus> {
    const call = commandInvocation(
      this.settings,
      this.release,
      findService(this.settings, service),
      'status',
      await this.releaseVars(),
    );
    const r = await this.exec(call.argv, {
      ...call,
      timeoutMs: options.timeoutMs ?? defaultStatusTimeout,
      signal: options.signal,
    });
    if (r.timedOut) return { state: 'unknown', detail: 'timeout' };
    return r.code === 0
      ? { state: 'running', detail: 'running' }
      : { state: 'stopped', detail: `exit-${r.code}` };
  }

  private services(name: string | undefined): ServiceConfig[] {
    return name === undefined ? [...this.settings.services] : [findService(this.settings, name)];
  }

  private async run(
    service: ServiceConfig,
    step: CommandStep,
    options: RuntimeCallOptions,
  ): Promise<void> {
    const call = commandInvocation(
      this.settings,
      this.release,
      service,
      step,
      await this.releaseVars(),
    );
    const timeoutMs = call.timeoutMs ?? options.timeoutMs;
    const r = await this.exec(call.argv, { ...call, timeoutMs, signal: options.signal });
    if (r.timedOut) {
      throw new OperationError(
        `${step} of ${service.name} did not finish within ${timeoutMs} ms and was killed; see ${call.outputFile}`,
      );
    }
    if (r.code !== 0) {
      throw new OperationError(
        `${step} of ${service.name} failed (exit ${r.code}); see ${call.outputFile}`,
      );
    }
  }
}
