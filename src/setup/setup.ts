import path from 'node:path';
import { toHostJson } from '../config/serialize.js';
import type { Config, HostConfig } from '../config/types.js';
import { OperationError, messageOf } from '../errors.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import type { Log } from '../log.js';
import type { Transport } from '../remote/transport.js';
import { agentPath, compileCachePath, cronEntry, cronPath, type SetupFile } from './setup-files.js';
import { sha, staleFiles } from './remote-state.js';
import { setupWithSudo } from './setup-sudo.js';

export interface SetupInput {
  /**
   * The one Config both the host config and the cron line are built from: two
   * configs (one with the operator's HANDOFF_* overrides) once gave a cron
   * line ticking every 10 s for a host config that said 60 s.
   */
  readonly config: Config;
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

/**
 * The caller has checked the host's node first (agent-client/node-check.ts).
 * Idempotent: directories are created if missing, a file is written only when
 * its content differs (atomically), so a second run changes nothing.
 */
export async function setupHost(
  host: HostConfig,
  transport: Transport,
  agent: Pick<HostAgent, 'run'>,
  input: SetupInput,
): Promise<HostSetup> {
  const { config } = input;
  const libs = input.agentLibs.map((lib) => ({
    path: path.join(path.dirname(agentPath(config)), lib.name),
    content: lib.content,
    mode: 0o644,
    what: `agent library ${lib.name}`,
  }));
  const node = await hostNode(transport);
  const files: SetupFile[] = [
    ...libs,
    { path: agentPath(config), content: input.agentBundle, mode: 0o755, what: 'agent' },
    // check URLs may carry credentials, and the service commands are in it: its user only
    {
      path: input.hostConfigPath,
      content: toHostJson(config),
      mode: 0o600,
      what: 'host config',
    },
    {
      path: cronPath(config),
      content: cronEntry(config, input.hostConfigPath, node),
      mode: 0o644,
      what: 'watchdog cron entry',
    },
  ];
  try {
    const stale = config.ssh.sudo
      ? await setupWithSudo(transport, config, host.name, files, input.hostConfigPath, node)
      : await setupAsUser(transport, config, files);
    const changed = stale.map((f) => f.what);
    if (stale.some((f) => f.path === agentPath(config)))
      await emptyCompileCache(transport, config, host.name, input.log);
    const hello = await agent.run('hello', {});
    if (hello.sha256 !== sha(input.agentBundle))
      throw new OperationError(
        `the installed agent does not match this deploy (${hello.sha256.slice(0, 12)})`,
      );
    // compose: the host must answer to a compose command (compose-command.ts)
    const compose = (await agent.run('status', {})).compose;
    if (compose && 'error' in compose) throw new OperationError(compose.error);
    input.log.emit({
      level: 'info',
      event: 'setup',
      host: host.name,
      message: changed.length ? `installed ${changed.join(', ')}` : 'up to date: nothing changed',
    });
    return { host: host.name, ok: true, changed };
  } catch (error) {
    const message = messageOf(error);
    return { host: host.name, ok: false, changed: [], error: message };
  }
}

/**
 * ssh.user is root or owns the paths: it makes the directories and writes
 * every stale file itself.
 */
async function setupAsUser(
  transport: Transport,
  config: Config,
  files: readonly SetupFile[],
): Promise<SetupFile[]> {
  const dirs = [
    path.dirname(agentPath(config)),
    `${config.host.root}/releases`,
    config.host.state,
    ...files.map((f) => path.dirname(f.path)),
  ];
  // the lock's directory only root (or its user) may write: the agent refuses
  // any other (host/lock-dir.ts); the lock file itself is created on first use
  for (const argv of [
    ['mkdir', '-p', '--', ...new Set(dirs)],
    ['mkdir', '-p', '-m', '0755', '--', path.dirname(config.host.lock)],
  ]) {
    const mk = await transport.exec(argv);
    if (mk.code !== 0)
      throw new OperationError(`cannot create the host directories: ${firstLine(mk.stderr)}`);
  }
  const stale = await staleFiles(transport, files);
  for (const f of stale) await transport.put(f.path, f.content, f.mode);
  return stale;
}

/**
 * A new agent's chunks have new names, and the compile cache's entries for the
 * old ones (and for every node before the current one) would stay beside it
 * forever (host/compile-cache.ts): a new agent starts with none. Emptied after
 * the agent is written, so only a tick already running can leave an old entry.
 * Never worth failing setup for: what ssh.user may not delete (entries of a
 * run as root) is a warning.
 */
async function emptyCompileCache(
  transport: Transport,
  config: Config,
  host: string,
  log: Log,
): Promise<void> {
  const dir = compileCachePath(config);
  const r = await transport.exec(['rm', '-rf', '--', dir]);
  if (r.code !== 0)
    log.emit({
      level: 'warn',
      event: 'setup',
      host,
      message: `the agent's old compile cache ${dir} could not be removed (${firstLine(r.stderr)}): it only takes disk space; remove it as root`,
    });
}

export const firstLine = (text: string): string => text.trim().split('\n')[0] ?? '';

/** the node ssh.user's SSH session runs (the agent's), or undefined when it cannot say */
async function hostNode(transport: Transport): Promise<string | undefined> {
  const r = await transport
    .exec(['node', '-p', 'process.execPath'], { timeoutMs: 15_000 })
    .catch(() => undefined);
  const found = r?.code === 0 ? r.stdout.trim() : '';
  return found === '' ? undefined : found;
}
