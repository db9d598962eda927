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
