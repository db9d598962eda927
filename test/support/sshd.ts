import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import type { HostConfig, SshConfig } from '../../src/config/types.js';

/** A real OpenSSH sshd on a loopback address, with its own keys, for e2e tests. */
export interface Sshd {
  readonly address: string;
  readonly port: number;
  /** the user tests log in as: whoever runs the tests (root in CI) */
  readonly user: string;
  /** `[address]:port ssh-ed25519 AAAA…` */
  readonly knownHostsLine: string;
  /** a known_hosts file holding exactly knownHostsLine */
  readonly knownHostsPath: string;
  /** a private key without passphrase that sshd accepts */
  readonly identityFile: string;
  /** the temp directory holding all of it */
  readonly dir: string;
  /** what sshd wrote to stderr so far (its log, with -e) */
  log(): string;
  /** kill every session (and the commands in it) but keep listening: a dropped connection */
  killSessions(): Promise<void>;
  stop(): Promise<void>;
}

export interface SshdOptions {
  /** e.g. 127.0.0.21; the whole 127.0.0.0/8 is loopback */
  readonly address: string;
  /** default: a free port on that address */
  readonly port?: number;
  /** reuse a client key (a second sshd that must accept the same identity) */
  readonly identityFile?: string;
  /** more sshd_config lines */
  readonly config?: readonly string[];
}

/*
 * sshd in a private mount namespace whose ~/.bashrc is empty: bash sources
 * ~/.bashrc for every SSH command, and a slow one on the test machine (pyenv
 * init: ~4 s) would make each exec take seconds. Needs root (unshare, mount),
 * as the e2e tests run. $1 sshd_config, $2 empty file.
 */
const SSHD_SCRIPT = `set -eu
if [ -f "$HOME/.bashrc" ]; then mount --bind "$2" "$HOME/.bashrc"; fi
exec /usr/sbin/sshd -D -e -f "$1"
`;

async function keygen(file: string): Promise<string> {
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'handoff-test', '-f', file]);
  return (await readFile(`${file}.pub`, 'utf8')).trim();
}

function freePort(address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, address, () => {
      const bound = server.address();
      server.close(() =>
        typeof bound === 'object' && bound ? resolve(bound.port) : reject(new Error('no port')),
      );
    });
  });
}

function canConnect(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** poll, don't sleep: readiness is "a TCP connect succeeds", bounded by a deadline */
async function awaitListening(
  sshd: ChildProcess,
  address: string,
  port: number,
  stderr: () => string,
): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (sshd.exitCode !== null) throw new Error(`sshd exited with ${sshd.exitCode}: ${stderr()}`);
    if (await canConnect(address, port)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`sshd did not listen on ${address}:${port} within 10s: ${stderr()}`);
}

/** every descendant of pid, deepest first, from /proc */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(entry), ppid);
  }
  const below = (p: number): number[] =>
    [...parents].filter(([, ppid]) => ppid === p).flatMap(([child]) => [...below(child), child]);
  return below(pid);
}

export async function startSshd(options: SshdOptions): Promise<Sshd> {
  // the privilege-separation directory sshd insists on
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = await mkdtemp(path.join(tmpdir(), 'handoff-sshd-'));
  const port = options.port ?? (await freePort(options.address));
  const hostKey = path.join(dir, 'ssh_host_ed25519_key');
  const [type, key] = (await keygen(hostKey)).split(' ');
  let identityFile = options.identityFile;
  if (identityFile === undefined) {
    identityFile = path.join(dir, 'id_ed25519');
    await keygen(identityFile);
  }
  const authorizedKeys = path.join(dir, 'authorized_keys');
  await writeFile(authorizedKeys, await readFile(`${identityFile}.pub`, 'utf8'));
  const knownHostsLine = `[${options.address}]:${port} ${type} ${key}`;
  const knownHostsPath = path.join(dir, 'known_hosts');
  await writeFile(knownHostsPath, `${knownHostsLine}\n`);
  const configFile = path.join(dir, 'sshd_config');
  await writeFile(
    configFile,
    [
      `ListenAddress ${options.address}:${port}`,
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorizedKeys}`,
      'PermitRootLogin yes',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'PrintMotd no',
      'MaxStartups 100',
      'MaxSessions 50',
      'Subsystem sftp internal-sftp',
      ...(options.config ?? []),
      '',
    ].join('\n'),
  );

  const emptyRc = path.join(dir, 'empty-bashrc');
  await writeFile(emptyRc, '');
  const sshd = spawn(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      '--',
      'sh',
      '-c',
      SSHD_SCRIPT,
      'test-sshd',
      configFile,
      emptyRc,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  sshd.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => sshd.once('exit', () => resolve()));
  try {
    await awaitListening(sshd, options.address, port, () => stderr);
  } catch (error) {
    sshd.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  /**
   * A dropped session, as a host that vanishes drops it: nothing said on the
   * wire. Every process is stopped before any is killed: killed one by one, a
   * session process that outlived its command by a moment sent the command's
   * exit status (137) before it died itself.
   */
  const killSessions = async (): Promise<void> => {
    if (sshd.pid === undefined) return;
    const pids = await descendants(sshd.pid);
    for (const signal of ['SIGSTOP', 'SIGKILL'] as const)
      for (const pid of pids) {
        try {
          process.kill(pid, signal);
        } catch {
          // already gone
        }
      }
  };
  return {
    address: options.address,
    port,
    user: userInfo().username,
    knownHostsLine,
    knownHostsPath,
    identityFile,
    dir,
    log: () => stderr,
    killSessions,
    stop: async () => {
      await killSessions();
      if (sshd.exitCode === null) sshd.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** deploy.yml's ssh section, normalized, pointing at this sshd */
export function sshConfigFor(sshd: Sshd, overrides: Partial<SshConfig> = {}): SshConfig {
  return {
    user: sshd.user,
    port: sshd.port,
    identityFile: sshd.identityFile,
    knownHosts: sshd.knownHostsPath,
    connectTimeout: 5_000,
    maxConnections: 50,
    sudo: false,
    ...overrides,
  };
}

export function hostConfigFor(sshd: Sshd, name = 'web-1'): HostConfig {
  return { name, address: sshd.address, target: name };
}
