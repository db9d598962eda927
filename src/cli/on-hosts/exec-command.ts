import { HandoffError, UsageError } from '../../errors.js';
import { whoAmI } from '../connections.js';
import type { HostRun } from './host-lines.js';
import { openOnHosts } from './open-on-hosts.js';
import type { FleetFlags } from '../open-fleet.js';

export interface ExecFlags extends FleetFlags {
  /** why it runs on a host whose lock another holds */
  readonly force?: string;
}

const summary = (r: HostRun): string =>
  'error' in r
    ? `${r.host}: not run: ${r.error}`
    : `${r.host}: exit ${r.code} (release ${r.release})`;

/**
 * `deploy exec HOST… -- CMD…`: CMD on every host named, as ssh.user in the
 * live release's directory with its environment; each host's output
 * prefixed, then each host's exit code. Fails (exit 1) when any host's did.
 */
export async function runExec(
  names: readonly string[],
  command: readonly string[],
  flags: ExecFlags,
): Promise<void> {
  if (names.length === 0 || command.length === 0)
    throw new UsageError('give hosts and a command: deploy exec web-1 web-2 -- CMD ARGS…');
  if (flags.force !== undefined && flags.force.trim() === '')
    throw new UsageError(
      '--force needs the reason it runs past the host lock (it goes to the audit)',
    );
  const on = await openOnHosts(flags, names);
  const { out } = on;
  try {
    const args = {
      argv: JSON.stringify(command),
      who: whoAmI(),
      ...(flags.force === undefined ? {} : { force: flags.force }),
    };
    const { runs, exitCode } = await on.stream('exec', args);
    const failed = runs.filter((r) => 'error' in r || r.code !== 0);
    if (!out.json) out.text(runs.map(summary).join('\n'));
    out.result(failed.length === 0, { hosts: runs });
    if (failed.length)
      throw new HandoffError(`exec failed on ${failed.map((r) => r.host).join(', ')}`, exitCode);
  } finally {
    await on.close();
  }
}
