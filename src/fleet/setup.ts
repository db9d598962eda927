import { createHash } from 'node:crypto';
import path from 'node:path';
import { toHostJson } from '../config/serialize.js';
import type { Config, HostConfig } from '../config/types.js';
import { OperationError, messageOf } from '../errors.js';
import type { AgentClient } from '../agent-client/client.js';
import type { Log } from '../log.js';
import type { Transport } from '../remote/transport.js';
import { agentPath, cronEntry, cronPath, type SetupFile } from './setup-files.js';
import { installArgv, ownedDirs, privileged, stepFailed } from './sudo.js';

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

const sha = (content: string | Buffer): string =>
  createHash('sha256').update(content).digest('hex');

/**
 * What each file on the host is now, as `<sha256> <mode>` keyed by path:
 * `sha256sum` and `stat` answer for the files that exist; the missing ones
 * simply get no line. The mode counts: a host config someone made
 * world-readable is written again with its own.
 */
async function remoteState(t: Transport, paths: readonly string[]): Promise<Map<string, string>> {
  const [sums, modes] = await Promise.all([
    t.exec(['sha256sum', '--', ...paths]),
    t.exec(['stat', '-c', '%a %n', '--', ...paths]),
  ]);
  const hashes = linesOf(sums.stdout, /^([0-9a-f]{64})\s+\*?(.+)$/);
  const perms = linesOf(modes.stdout, /^([0-7]{3,4}) (.+)$/);
  return new Map([...hashes].map(([path, hash]) => [path, `${hash} ${perms.get(path) ?? '?'}`]));
}

function linesOf(stdout: string, pattern: RegExp): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const m = pattern.exec(line.trim());
    if (m?.[1] && m[2]) found.set(m[2], m[1]);
  }
  return found;
}

const stateOf = (f: SetupFile): string => `${sha(f.content)} ${f.mode.toString(8)}`;

/**
 * The caller has checked the host's node first (agent-client/node-check.ts).
 * Idempotent: directories are created if missing, a file is written only when
 * its content differs (atomically), so a second run changes nothing.
 */
export async function setupHost(
  host: HostConfig,
  transport: Transport,
  agent: Pick<AgentClient, 'hello' | 'status'>,
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
    // check URLs may carry credentials, and the service commands are in it: its user only
    {
      path: input.hostConfigPath,
      content: toHostJson(config),
      mode: 0o600,
      what: 'host config',
      owner: 'user',
    },
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
      ...files.map((f) => path.dirname(f.path)),
    ];
    // the lock's directory only root (or its user) may write: the agent refuses
    // any other (host/lock-dir.ts); the lock file itself is created on first use
    const steps = [
      ['mkdir', '-p', '--', ...new Set(dirs)],
      ['mkdir', '-p', '-m', '0755', '--', path.dirname(config.host.lock)],
      // made as root: the agent, running as ssh.user, writes releases, state and the lock there
      ...(config.ssh.sudo ? [['chown', `${config.ssh.user}:`, '--', ...ownedDirs(config)]] : []),
    ];
    for (const argv of steps) {
      const mk = await transport.exec(privileged(config, argv));
      if (mk.code !== 0)
        throw stepFailed(config, host.name, 'cannot create the host directories', mk.stderr);
    }
    const now = await remoteState(
      transport,
      files.map((f) => f.path),
    );
    const stale = files.filter((f) => now.get(f.path) !== stateOf(f));
    if (config.ssh.sudo) await installWithSudo(transport, config, host.name, stale);
    else for (const f of stale) await transport.put(f.path, f.content, f.mode);
    const changed = stale.map((f) => f.what);
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
    const message = messageOf(error);
    return { host: host.name, ok: false, changed: [], error: message };
  }
}

/**
 * `ssh.sudo`: each file is uploaded as ssh.user into a private temp directory,
 * then installed by root with its owner (root; the host config: ssh.user, whose
 * agent reads it) and mode, and renamed into place (fleet/sudo.ts).
 */
async function installWithSudo(
  t: Transport,
  config: Config,
  host: string,
  files: readonly SetupFile[],
): Promise<void> {
  if (files.length === 0) return;
  const made = await t.exec(['mktemp', '-d', '/tmp/handoff-setup.XXXXXXXX']);
  const dir = made.stdout.trim();
  if (made.code !== 0 || !dir)
    throw stepFailed(config, host, 'cannot make a temp directory', made.stderr);
  try {
    for (const [i, f] of files.entries()) {
      const uploaded = `${dir}/${i}`;
      await t.put(uploaded, f.content, 0o600);
      for (const argv of installArgv(
        config,
        { path: f.path, mode: f.mode, owner: f.owner ?? 'root' },
        uploaded,
      )) {
        const r = await t.exec(argv);
        if (r.code !== 0) throw stepFailed(config, host, `cannot install the ${f.what}`, r.stderr);
      }
    }
  } finally {
    await t.exec(['rm', '-rf', '--', dir]).catch(() => undefined);
  }
}
