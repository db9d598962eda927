import { BlockedError, messageOf } from '../../errors.js';
import type { HostExec } from '../exec.js';
import { composeVersion } from './compose-argv.js';
import { lastLine } from './common.js';

/** Tried in this order when deploy.yml names no `runtime.compose_command`. */
export const COMPOSE_CANDIDATES: readonly (readonly string[])[] = [
  ['docker', 'compose'],
  ['docker-compose'],
  ['podman-compose'],
];

const VERSION_TIMEOUT = 15_000;

/**
 * The compose command this host answers to: the configured one if its
 * `version` works, else the first candidate whose `version` works. None
 * working refuses with one line naming what was tried (exit 3), before
 * anything on the host changed.
 */
export async function discoverComposeCommand(
  exec: HostExec,
  configured?: readonly string[],
): Promise<readonly string[]> {
  const tried: string[] = [];
  for (const command of configured ? [configured] : COMPOSE_CANDIDATES) {
    const r = await exec(composeVersion(command), { timeoutMs: VERSION_TIMEOUT }).catch(
      (error: unknown) => ({
        code: 127,
        stderr: messageOf(error),
        timedOut: false,
      }),
    );
    if (r.code === 0 && !r.timedOut) return command;
    const why = r.timedOut ? 'timed out' : `exit ${r.code}`;
    const detail = lastLine(r.stderr);
    tried.push(`'${command.join(' ')} version' (${why}${detail ? `: ${detail}` : ''})`);
  }
  throw new BlockedError(
    configured
      ? `runtime.compose_command does not work on this host: ${tried.join('')}`
      : `no compose command works on this host: tried ${tried.join(', ')}; install one or set runtime.compose_command`,
  );
}
