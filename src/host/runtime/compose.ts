import { OperationError } from '../../errors.js';
import type { HostExec } from '../exec.js';
import { assertPublished, lastLine } from './common.js';
import {
  composePs,
  composePull,
  composeRestart,
  composeStop,
  composeUp,
  type ComposeTarget,
} from './compose-argv.js';
import { composeServiceStatus, parseComposePs } from './compose-ps.js';
import type { Runtime, RuntimeCallOptions, RuntimeSettings, ServiceStatus } from './runtime.js';

/** The compose runtime: the argv builders of compose-argv.ts, run through the host executor. */
export class ComposeRuntime implements Runtime {
  constructor(
    private readonly settings: RuntimeSettings,
    readonly release: string,
    private readonly exec: HostExec,
  ) {}

  async prepare(release: string, options: RuntimeCallOptions = {}): Promise<void> {
    await assertPublished(this.settings.root, release);
    await this.run('pull', composePull(this.target(release)), options);
  }

  async start(service?: string, options: RuntimeCallOptions = {}): Promise<void> {
    await this.run(`up ${service ?? 'all'}`, composeUp(this.target(), service), options);
  }

  async stop(service?: string, options: RuntimeCallOptions = {}): Promise<void> {
    const argv = composeStop(this.target(), this.settings.stopTimeout, service);
    await this.run(`stop ${service ?? 'all'}`, argv, options);
  }

  async restart(service: string, options: RuntimeCallOptions = {}): Promise<void> {
    const argv = composeRestart(this.target(), this.settings.stopTimeout, service);
    await this.run(`restart ${service}`, argv, options);
  }

  async status(service: string, options: RuntimeCallOptions = {}): Promise<ServiceStatus> {
    const r = await this.exec(composePs(this.target(), service), options);
    if (r.timedOut) return { state: 'unknown', detail: 'timeout' };
    if (r.code !== 0) return { state: 'unknown', detail: `ps-exit-${r.code}` };
    const containers = parseComposePs(r.stdout);
    if (!containers) return { state: 'unknown', detail: 'ps-unreadable' };
    return composeServiceStatus(containers, service);
  }

  private target(release = this.release): ComposeTarget {
    return { root: this.settings.root, release, project: this.settings.project };
  }

  private async run(what: string, argv: string[], options: RuntimeCallOptions): Promise<void> {
    const r = await this.exec(argv, options);
    if (r.timedOut)
      throw new OperationError(
        `docker compose ${what} did not finish within ${options.timeoutMs} ms`,
      );
    if (r.code !== 0) {
      const why = lastLine(r.stderr);
      throw new OperationError(
        `docker compose ${what} failed (exit ${r.code})${why ? `: ${why}` : ''}`,
      );
    }
  }
}
