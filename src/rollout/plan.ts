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
  if (unknown.length > 0) {
    throw new UsageError(
      `--hosts: unknown host ${unknown.join(', ')}; deploy.yml has ${[...known].join(', ')}`,
    );
  }
  const wanted = new Set(names);
  return all.filter((h) => wanted.has(h.name));
}

export interface Plan {
  readonly release: string;
  readonly batch: number;
  readonly waves: readonly (readonly HostConfig[])[];
}

/** Pure: which hosts go together, in which order. */
export function planRollout(release: string, hosts: readonly HostConfig[], batch: Batch): Plan {
  const size = batchSize(batch, hosts.length);
  const waves: HostConfig[][] = [];
  for (let i = 0; i < hosts.length; i += size) waves.push(hosts.slice(i, i + size));
  return { release, batch: size, waves };
}
