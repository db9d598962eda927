import type { ReleaseInventory } from '../../host/release-inventory.js';
import { formatMs } from '../../timing/duration.js';
import { megabytes } from '../../rollout/ship.js';

export type HostReleases =
  | { readonly host: string; readonly inventory: ReleaseInventory }
  | { readonly host: string; readonly error: string };

export interface PartialRelease {
  readonly release: string;
  /** the reachable hosts that do not have it */
  readonly missingOn: readonly string[];
}

/** Releases that some reachable hosts have and others do not, with the hosts missing each. */
export function partialReleases(rows: readonly HostReleases[]): PartialRelease[] {
  const reached = rows.flatMap((r) => ('inventory' in r ? [r] : []));
  const all = new Set(reached.flatMap((r) => r.inventory.releases.map((e) => e.id)));
  return [...all].sort().flatMap((release) => {
    const missingOn = reached
      .filter((r) => !r.inventory.releases.some((e) => e.id === release))
      .map((r) => r.host);
    return missingOn.length > 0 ? [{ release, missingOn }] : [];
  });
}

export interface MixedRelease {
  readonly release: string;
  /** the hosts holding each build, by the sha256 of the artifact it came from */
  readonly builds: readonly { readonly sha256: string; readonly hosts: readonly string[] }[];
}

/**
 * Release ids whose hosts hold different builds (an artifact shipped under an
 * id that another artifact had used): a rollback to it would run different
 * code on different hosts.
 */
export function mixedReleases(rows: readonly HostReleases[]): MixedRelease[] {
  const shas = new Map<string, Map<string, string[]>>();
  for (const row of rows) {
    if (!('inventory' in row)) continue;
    for (const r of row.inventory.releases) {
      if (r.artifactSha256 === null) continue;
      const bySha = shas.get(r.id) ?? new Map<string, string[]>();
      bySha.set(r.artifactSha256, [...(bySha.get(r.artifactSha256) ?? []), row.host]);
      shas.set(r.id, bySha);
    }
  }
  return [...shas]
    .filter(([, bySha]) => bySha.size > 1)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([release, bySha]) => ({
      release,
      builds: [...bySha].map(([sha256, hosts]) => ({ sha256, hosts })),
    }));
}

/** `3m ago`, `5h ago`, `12d ago`: an age, not a stopwatch */
function age(ms: number): string {
  if (ms < 3_600_000) return `${formatMs(ms)} ago`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)}h ago`;
  return `${Math.floor(ms / 86_400_000)}d ago`;
}

/**
 * One block per host, newest first:
 * `  r7  current   3m ago  48.2 MB` — and `(not on web-2)` for a release
 * that only some hosts have (a rollout that stopped part way, a prune).
 */
export function renderReleases(rows: readonly HostReleases[]): string {
  const partial = new Map(partialReleases(rows).map((p) => [p.release, p.missingOn]));
  const mixed = new Set(mixedReleases(rows).map((m) => m.release));
  const lines: string[] = [];
  for (const row of rows) {
    if (!('inventory' in row)) {
      lines.push(`${row.host}: unreachable: ${row.error}`);
      continue;
    }
    const { inventory } = row;
    lines.push(`${row.host}: ${inventory.releases.length} release(s)`);
    for (const r of inventory.releases) {
      const role =
        r.id === inventory.current ? 'current' : r.id === inventory.previous ? 'previous' : '';
      const missing = partial.get(r.id);
      const flag =
        (missing ? `  (not on ${missing.join(', ')})` : '') +
        (mixed.has(r.id) ? '  (a different build on other hosts)' : '');
      const compose = r.composeSha256 ? `  compose.yml ${r.composeSha256.slice(0, 12)}` : '';
      lines.push(
        `  ${r.id.padEnd(20)} ${role.padEnd(8)} ${age(r.ageMs).padStart(10)}  ${megabytes(r.bytes).padStart(9)}${compose}${flag}`,
      );
    }
  }
  return lines.join('\n');
}
