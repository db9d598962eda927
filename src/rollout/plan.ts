import type { Batch, HostConfig } from '../config/types.js';
import { UsageError } from '../errors.js';
import { batchSize } from '../timing/bounds.js';

/** Parse `--batch N|P%` the same way deploy.yml's rollout.batch is read. */
export function parseBatchFlag(value: string): Batch {
  const percent = /^(\d{1,3})%$/.exec(value);
  if (percent?.[1]) {
    const p = Number(percent[1]);
    if (p >= 1 && p <= 100) return { kind: 'percent', percent: p };
  } else if (/^\d+$/.test(value) && Number(value) >= 1) {
    return { kind: 'count', count: Number(value) };
  }
  throw new UsageError(
    `--batch ${JSON.stringify(value)}: expected a host count like 2 or a share like 25%`,
  );
}

/** `--hosts a,b`: a subset of the fleet, in the fleet's order; an unknown name is a usage error. */
export function selectHosts(
  all: readonly HostConfig[],
  names: readonly string[] | undefined,
): HostConfig[] {
  if (!names || names.length === 0) return [...all];
  const known = new Set(all.map((h) => h.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) throw unknownHost(all, unknown, '--hosts: ');
  const wanted = new Set(names);
  return all.filter((h) => wanted.has(h.name));
}

/** The one host named as a command's argument (`deploy drain web-1`). */
export function findHost(all: readonly HostConfig[], name: string): HostConfig {
  const host = all.find((h) => h.name === name);
  if (!host) throw unknownHost(all, [name], '');
  return host;
}

function unknownHost(all: readonly HostConfig[], names: readonly string[], prefix: string) {
  return new UsageError(
    `${prefix}unknown host ${names.join(', ')}; deploy.yml has ${all.map((h) => h.name).join(', ')}`,
  );
}

export interface Plan {
  readonly release: string;
  readonly batch: number;
  readonly waves: readonly (readonly HostConfig[])[];
  /** the first wave is a canary (rollout.canary), judged before the next */
  readonly canary?: boolean;
}

/**
 * Pure: which hosts go together, in which order. A canary is the first wave
 * when it leaves a host on the old release to compare it with.
 */
export function planRollout(
  release: string,
  hosts: readonly HostConfig[],
  batch: Batch,
  canary?: Batch,
): Plan {
  const size = batchSize(batch, hosts.length);
  const first = canary ? batchSize(canary, hosts.length) : 0;
  // a canary needs a host left on the old release to be compared with
  const judged = first > 0 && first < hosts.length;
  const waves: HostConfig[][] = judged ? [hosts.slice(0, first)] : [];
  for (let i = judged ? first : 0; i < hosts.length; i += size)
    waves.push(hosts.slice(i, i + size));
  return { release, batch: size, waves, ...(judged && { canary: true }) };
}
