import { compareReleaseIds } from '../../release-id.js';

/**
 * `rollout.superseded: skip`: a job that waited for the lease and would now
 * deploy an older release than the one the fleet just got stands down. The
 * release "just deployed" is what every host selected runs now, by its own
 * word; a fleet on mixed releases, or on an older one, is deployed as asked.
 * Returns the newer release, or undefined to deploy.
 */
export function supersededBy(
  release: string,
  live: readonly (string | null)[],
): string | undefined {
  const first = live[0];
  if (!first || live.some((r) => r !== first)) return undefined;
  return compareReleaseIds(release, first) < 0 ? first : undefined;
}
