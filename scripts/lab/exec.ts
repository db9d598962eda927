import { execa } from 'execa';
import { labFiles } from './layout.js';
import type { LabHost } from './host.js';

export interface ExecResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ExecOptions {
  /** default 30 s: every lab command is bounded */
  readonly timeoutMs?: number;
  readonly env?: Readonly<Record<string, string>>;
  readonly input?: string;
}

/** argv that runs `argv` inside the host's mount and UTS namespaces, from this machine. */
export function nsenterArgv(host: Pick<LabHost, 'pid'>, argv: readonly string[]): string[] {
  return ['nsenter', '-t', String(host.pid), '-m', '-u', '--', ...argv];
}

async function run(argv: readonly string[], options: ExecOptions): Promise<ExecResult> {
  const [cmd, ...args] = argv;
  const r = await execa(cmd as string, args, {
    reject: false,
    timeout: options.timeoutMs ?? 30_000,
    env: options.env ? { ...process.env, ...options.env } : process.env,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' }),
  });
  return { exitCode: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** For assertions and fault injection: no SSH in between, just the namespaces. */
export function inHost(
  host: Pick<LabHost, 'pid'>,
  argv: readonly string[],
  options: ExecOptions = {},
): Promise<ExecResult> {
  return run(nsenterArgv(host, argv), options);
}

/** POSIX single-quoting, for the one place a command line crosses SSH as a string. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** OpenSSH client options (ssh, scp) for a lab host: the lab's key only, its host keys strictly. */
export function sshClientOptions(workDir: string): string[] {
  const files = labFiles(workDir);
  return [
    '-F',
    '/dev/null',
    '-i',
    files.clientKey,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    `UserKnownHostsFile=${files.knownHosts}`,
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    'BatchMode=yes',
  ];
}

/** argv of the OpenSSH client logging in to a lab host as root, strictly checking its key. */
export function sshArgv(
  workDir: string,
  host: Pick<LabHost, 'address' | 'sshPort'>,
  argv: readonly string[],
): string[] {
  return [
    'ssh',
    ...sshClientOptions(workDir),
    '-o',
    'ConnectTimeout=5',
    '-p',
    String(host.sshPort),
    `root@${host.address}`,
    '--',
    argv.map(shellQuote).join(' '),
  ];
}

export function sshExec(
  workDir: string,
  host: Pick<LabHost, 'address' | 'sshPort'>,
  argv: readonly string[],
  options: ExecOptions = {},
): Promise<ExecResult> {
  return run(sshArgv(workDir, host, argv), options);
}
