import { UsageError } from './errors.js';

/**
 * A release id names the directory `host.root/releases/<id>`: one path
 * segment that is neither `.` nor `..`, checked by the orchestrator (plan)
 * and again by the agent, which must not trust its caller with a path.
 */
export const RELEASE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function checkReleaseId(release: string, flag = '--release'): string {
  if (!RELEASE_ID.test(release))
    throw new UsageError(
      `${flag} ${JSON.stringify(release)}: use letters, digits, '.', '_' and '-' (at most 128, starting with a letter or digit)`,
    );
  return release;
}

/**
 * The order of release ids: runs of digits compare as numbers, everything
 * else as text, so `2026-11-30.9` < `2026-11-30.10` and `v1.9` < `v1.10`.
 * Negative: `a` is older.
 */
export function compareReleaseIds(a: string, b: string): number {
  const pa = a.match(/\d+|\D+/g) ?? [];
  const pb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    if (x === y) continue;
    const digits = /^\d/.test(x) && /^\d/.test(y);
    if (digits) {
      const n = BigInt(x) - BigInt(y);
      if (n !== 0n) return n < 0n ? -1 : 1;
      continue;
    }
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length || (a < b ? -1 : a > b ? 1 : 0);
}
