import path from 'node:path';
import type { Config } from '../config/types.js';
import { OperationError } from '../errors.js';

/**
 * `ssh.sudo: true`: setup's privileged steps as data. Each runs as
 * `sudo -n -- argv` (never a prompt: one would hang the SSH session); without
 * sudo the argv runs as it is, as ssh.user (root, or a user who owns the paths).
 * The rule: only setup needs root. The agent, the watchdog and the service
 * commands run as ssh.user; a service command that needs root carries its own
 * `sudo -n` in deploy.yml (docs/ssh.md).
 */
export function privileged(config: Pick<Config, 'ssh'>, argv: readonly string[]): string[] {
  return config.ssh.sudo ? ['sudo', '-n', '--', ...argv] : [...argv];
}

/** The directories the agent writes as ssh.user: setup hands them over when it made them as root. */
export function ownedDirs(config: Pick<Config, 'host'>): string[] {
  const { root, state, lock } = config.host;
  return [root, `${root}/releases`, state, path.dirname(lock)];
}

/**
 * A file written through sudo: uploaded (SFTP, as ssh.user) to a private temp
 * directory, installed beside its destination with its owner and mode, then
 * renamed over it, so cron never reads half a file.
 */
export function installArgv(
  config: Pick<Config, 'ssh'>,
  file: { readonly path: string; readonly mode: number; readonly owner: 'root' | 'user' },
  uploaded: string,
): string[][] {
  const temp = `${file.path}.handoff-setup`;
  const mode = file.mode.toString(8).padStart(4, '0');
  // the user's own file keeps root's group: its mode (0600) gives the group nothing
  const owner = file.owner === 'user' ? ['-o', config.ssh.user] : ['-o', 'root', '-g', 'root'];
  return [
    privileged(config, ['install', '-m', mode, ...owner, '--', uploaded, temp]),
    privileged(config, ['mv', '-f', '--', temp, file.path]),
  ];
}

/** What a NOPASSWD rule must allow: the commands setup runs through sudo. */
export const SUDO_COMMANDS = ['mkdir', 'chown', 'install', 'mv'] as const;

/**
 * A failed privileged step as one line that says what to do: sudo that wants
 * a password (`sudo -n` refuses instead of asking), or no sudo at all.
 * Undefined when stderr is about something else.
 */
export function sudoProblem(user: string, host: string, stderr: string): string | undefined {
  if (/sudo: (a password is required|a terminal is required)/.test(stderr))
    return `ssh.user ${user} cannot run sudo without a password on ${host}: add a NOPASSWD rule for ${SUDO_COMMANDS.join(', ')} (docs/ssh.md), e.g. /etc/sudoers.d/handoff: ${user} ALL=(root) NOPASSWD: ${SUDO_COMMANDS.map((c) => `/usr/bin/${c}`).join(', ')}`;
  if (/sudo: (command )?not found|sudo: No such file/.test(stderr))
    return `sudo is not installed on ${host}: install it (apt-get install sudo), or leave ssh.sudo out and connect as a user who owns the paths`;
  if (/is not in the sudoers file|is not allowed to (run|execute)/.test(stderr))
    return `ssh.user ${user} may not run this through sudo on ${host}: allow ${SUDO_COMMANDS.join(', ')} in its sudoers rule (docs/ssh.md)`;
  return undefined;
}

/** A step that failed: the sudo advice when that is the cause, else `what` and stderr's first line. */
export function stepFailed(
  config: Pick<Config, 'ssh'>,
  host: string,
  what: string,
  stderr: string,
): OperationError {
  const sudo = config.ssh.sudo ? sudoProblem(config.ssh.user, host, stderr) : undefined;
  return new OperationError(sudo ?? `${what}: ${stderr.trim().split('\n')[0] ?? ''}`);
}
