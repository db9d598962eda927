import type { Config } from '../config/types.js';
import { OperationError } from '../errors.js';
import { sudoersPath } from './root-steps.js';

/**
 * `ssh.sudo: true`: each root step (root-steps.ts) runs as `sudo -n -- argv`
 * (never a prompt: one would hang the SSH session); without sudo the argv
 * runs as it is, as ssh.user (root, or a user who owns the paths).
 * The rule: only setup needs root. The agent, the watchdog and the service
 * commands run as ssh.user; a service command that needs root carries its own
 * `sudo -n` in deploy.yml (docs/ssh.md).
 */
export function privileged(config: Pick<Config, 'ssh'>, argv: readonly string[]): string[] {
  return config.ssh.sudo ? ['sudo', '-n', '--', ...argv] : [...argv];
}

/**
 * A failed privileged step as one line that says what to do: sudo that wants
 * a password (`sudo -n` refuses instead of asking), a rule that does not
 * allow this exact command, or no sudo at all. Undefined when stderr is about
 * something else.
 */
export function sudoProblem(
  config: Pick<Config, 'ssh' | 'service'>,
  host: string,
  stderr: string,
): string | undefined {
  const user = config.ssh.user;
  const rule = `install the output of 'deploy setup --print-sudoers' as ${sudoersPath(config)} (docs/ssh.md)`;
  if (/sudo: (a password is required|a terminal is required)/.test(stderr))
    return `ssh.user ${user} cannot run setup's root steps through sudo without a password on ${host}: ${rule}`;
  if (/sudo: (command )?not found|sudo: No such file/.test(stderr))
    return `sudo is not installed on ${host}: install it (apt-get install sudo), or leave ssh.sudo out and connect as a user who owns the paths`;
  if (/is not in the sudoers file|is not allowed to (run|execute)/.test(stderr))
    return `ssh.user ${user} may not run setup's root steps through sudo on ${host}: ${rule}; a changed host path needs the new rule`;
  return undefined;
}

/** A step that failed: the sudo advice when that is the cause, else `what` and stderr's first line. */
export function stepFailed(
  config: Pick<Config, 'ssh' | 'service'>,
  host: string,
  what: string,
  stderr: string,
): OperationError {
  const sudo = config.ssh.sudo ? sudoProblem(config, host, stderr) : undefined;
  return new OperationError(sudo ?? `${what}: ${stderr.trim().split('\n')[0] ?? ''}`);
}
