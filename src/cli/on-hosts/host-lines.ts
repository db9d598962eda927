import type { HostAgent } from '../../agent-client/host-agent.js';
import type { AgentClient } from '../../agent-client/client.js';
import { ExitCode, HandoffError, hostError } from '../../errors.js';
import { findHost } from '../../rollout/plan.js';
import type { CommandExit } from '../../protocol/results.js';
import type { Config, HostConfig } from '../../config/types.js';
import type { Connections } from '../connections.js';
import type { Output } from '../output.js';

/** HOST… as deploy.yml names them, each once; unknown names refused before any connection. */
export function namedHosts(config: Config, names: readonly string[]): HostConfig[] {
  return [...new Set(names)].map((name) => findHost(config.hosts, name));
}

/**
 * What a command on several hosts printed, as it comes: `web-1 | line` on
 * stdout (names padded to one width), or with --json an `output` event per line.
 */
export function hostPrinter(out: Output, hosts: readonly HostConfig[]) {
  const width = Math.max(...hosts.map((h) => h.name.length));
  return (host: string, line: string): void => {
    if (out.json) out.emit({ level: 'info', event: 'output', message: line, host });
    else out.text(`${host.padEnd(width)} | ${line}`);
  };
}

export type HostRun =
  { host: string; release: string; code: number } | { host: string; error: string };

export interface HostRuns {
  readonly runs: HostRun[];
  /**
   * How the command fails when every host refused it alike before it ran:
   * 2 (bad input, e.g. --since to the command runtime) or 3 (a held lock); else 1.
   */
  readonly exitCode: ExitCode;
}

const exitOf = (error: unknown): ExitCode =>
  error instanceof HandoffError ? error.exitCode : ExitCode.failed;

/** Runs `op` on every host at once through its agent; a host that fails is named, the others go on. */
export async function onEveryHost(
  hosts: readonly HostConfig[],
  connections: Connections,
  run: (agent: HostAgent & AgentClient, host: HostConfig) => Promise<CommandExit>,
): Promise<HostRuns> {
  const exits: ExitCode[] = [];
  const runs = await Promise.all(
    hosts.map(async (host): Promise<HostRun> => {
      try {
        const r = await run(await connections.agent(host), host);
        exits.push(ExitCode.failed);
        return { host: host.name, release: r.release, code: r.code };
      } catch (error) {
        exits.push(exitOf(error));
        return { host: host.name, error: hostError(host.name, error) };
      }
    }),
  );
  const alike = exits.every((e) => e === exits[0]) ? exits[0] : undefined;
  const refused = alike === ExitCode.usage || alike === ExitCode.blocked;
  return { runs, exitCode: refused ? alike : ExitCode.failed };
}

/** Ctrl-C (or SIGTERM) aborts: each host's command is stopped there, and its result still read. */
export function untilInterrupted(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}
