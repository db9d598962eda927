import type { Batch } from '../config/types.js';
import { UsageError } from '../errors.js';
import { parseBatchFlag } from '../rollout/plan.js';

/**
 * `--hosts` and `--batch` narrow what a command touches, so a value that
 * narrows nothing must not quietly mean "everything": `--hosts ''` (an empty
 * CI variable) deploying the whole fleet is the failure this prevents.
 */

/** undefined: the flag was not given, every host; otherwise at least one name */
export function parseHostsFlag(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new UsageError(
      `--hosts ${JSON.stringify(value)} names no host: give names like web-1,web-2, or leave --hosts out for every host`,
    );
  return names;
}

/** `--batch` as deploy.yml's rollout.batch is read, and no larger than the hosts it deploys. */
export function parseBatchOption(value: string | undefined, hosts: number): Batch | undefined {
  if (value === undefined) return undefined;
  const batch = parseBatchFlag(value);
  if (batch.kind === 'count' && batch.count > hosts)
    throw new UsageError(
      `--batch ${value} is more than the ${hosts} host${hosts === 1 ? '' : 's'} this rollout deploys; use at most ${hosts} or a percentage`,
    );
  return batch;
}
