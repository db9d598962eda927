import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Config, HostConfig } from '../config/types.js';
import { HandoffError, OperationError } from '../errors.js';
import type { AgentClient } from '../agent-client/client.js';
import type { Log } from '../log.js';
import type { Transport } from '../remote/transport.js';
import { agentPath, cronEntry, cronPath, type SetupFile } from './setup-files.js';

export interface SetupInput {
  readonly config: Config;
  /** the raw deploy.yml document as JSON: what the host's agent and watchdog read */
  readonly hostConfigJson: string;
  readonly hostConfigPath: string;
  readonly agentBundle: Buffer;
  /** installed beside the agent, before it: an agent never names a file not yet there */
  readonly agentLibs: readonly { readonly name: string; readonly content: Buffer }[];
  readonly log: Log;
}

export interface HostSetup {
  readonly host: string;
  readonly ok: boolean;
  readonly changed: readonly string[];
  readonly error?: string;
}

const sha = (content: string | Buffer): string =>
  createHash('sha256').update(content).digest('hex');

/** `sha256sum` answers for the files that exist; the missing ones simply get no line. */
async function remoteHashes(t: Transport, paths: readonly string[]): Promise<Map<string, string>> {
  const r = await t.exec(['sha256sum', '--', ...paths]);
  const hashes = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const m = /^([0-9a-f]{64})\s+\*?(.+)$/.exec(line.trim());
    if (m?.[1] && m[2]) hashes.set(m[2], m[1]);
  }
  return hashes;
}

/**
 * Idempotent: directories are created if missing, a file is written only when
 * its content differs (atomically), so a second run changes nothing.
 */
export async function setupHost(
  host: HostConfig,
  transport: Transport,
  agent: AgentClient,
  input: SetupInput,
): Promise<HostSetup> {
  const { config } = input;
  const libs = input.agentLibs.map((lib) => ({
    path: path.join(path.dirname(agentPath(config)), lib.name),
    content: lib.content,
    mode: 0o644,
    what: `agent library ${lib.name}`,
  }));
  const files: SetupFile[] = [
    ...libs,
    { path: agentPath(config), content: input.agentBundle, mode: 0o755, what: 'agent' },
    { path: input.hostConfigPath, content: input.hostConfigJson, mode: 0o644, what: 'host config' },
    {
      path: cronPath(config),
      content: cronEntry(config, input.hostConfigPath),
      mode: 0o644,
      what: 'watchdog cron entry',
    },
  ];
  try {
    const dirs = [
      path.dirname(agentPath(config)),
      `${config.host.root}/releases`,
      config.host.state,
      path.dirname(config.host.lock),
      ...files.map((f) => path.dirname(f.path)),
    ];
    const mk = await transport.exec(['mkdir', '-p', '--', ...new Set(dirs)]);
    if (mk.code !== 0)
      throw new OperationError(
        `cannot create the host directories: ${mk.stderr.trim().split('\n')[0] ?? ''}`,
      );
    const lock = await transport.exec([
      'sh',
      '-c',
      'test -e "$1" || : > "$1"',
      'sh',
      config.host.lock,
    ]);
    if (lock.code !== 0)
      throw new OperationError(
        `cannot create the lock file ${config.host.lock}: ${lock.stderr.trim()}`,
      );
    const hashes = await remoteHashes(
      transport,
      files.map((f) => f.path),
    );
    const changed: string[] = [];
    for (const f of files) {
      if (hashes.get(f.path) === sha(f.content)) continue;
      await transport.put(f.path, f.content, f.mode);
      changed.push(f.what);
    }
    const hello = await agent.hello();
    if (hello.sha256 !== sha(input.agentBundle))
      throw new OperationError(
        `the installed agent does not match this deploy (${hello.sha256.slice(0, 12)})`,
      );
    // compose: the host must answer to a compose command (compose-command.ts)
    const compose = (await agent.status()).compose;
    if (compose && 'error' in compose) throw new OperationError(compose.error);
    input.log.emit({
      level: 'info',
      event: 'setup',
      host: host.name,
      message: changed.length ? `installed ${changed.join(', ')}` : 'up to date: nothing changed',
    });
    return { host: host.name, ok: true, changed };
  } catch (error) {
    const message =
      error instanceof HandoffError || error instanceof Error ? error.message : String(error);
    return { host: host.name, ok: false, changed: [], error: message };
  }
}
