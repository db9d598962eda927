import { ExitCode, HandoffError, UsageError } from '../../errors.js';
import { openOnHosts } from './open-on-hosts.js';
import type { FleetFlags } from '../open-fleet.js';

export interface LogsFlags extends FleetFlags {
  readonly follow?: boolean;
  readonly since?: string;
  readonly tail?: string;
}

function tailOf(value: string | undefined): number {
  if (value === undefined) return 100;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 1_000_000)
    throw new UsageError(`--tail ${value}: give a whole number of lines (0 to 1000000)`);
  return n;
}

/**
 * `deploy logs HOST… [-f] [--since T] [--tail N]`: the service's logs as its
 * runtime keeps them, from every host named at once, each line prefixed with
 * its host; `-f` follows until Ctrl-C.
 */
export async function runLogs(names: readonly string[], flags: LogsFlags): Promise<void> {
  const tail = tailOf(flags.tail);
  const on = await openOnHosts(flags, names);
  try {
    const args = {
      tail,
      ...(flags.follow ? { follow: true } : {}),
      ...(flags.since === undefined ? {} : { since: flags.since }),
    };
    const { runs, exitCode } = await on.stream('logs', args);
    const errors = runs.flatMap((r) => ('error' in r ? [r.error] : []));
    on.out.result(errors.length === 0, { hosts: runs });
    if (errors.length === 0) return;
    // bad input every host refused alike (--since to the command runtime): said once
    const once = exitCode === ExitCode.usage && new Set(errors).size === 1;
    const lines = runs.flatMap((r) => ('error' in r ? [`${r.host}: ${r.error}`] : []));
    throw new HandoffError(once ? (errors[0] ?? '') : lines.join('\n'), exitCode);
  } finally {
    await on.close();
  }
}
