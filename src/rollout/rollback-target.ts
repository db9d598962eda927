import type { HostConfig } from '../config/types.js';
import { BlockedError, UsageError, messageOf } from '../errors.js';
import type { HostStatus } from '../protocol/results.js';
import { RELEASE_ID } from '../release-id.js';
import type { RolloutDeps } from './types.js';

/** Hosts of the plan that do not have `release` in releases/, with what they have. */
export function missingRelease(
  statuses: ReadonlyMap<string, HostStatus>,
  release: string,
): string[] {
  return [...statuses.entries()]
    .filter(([, s]) => !s.releases.includes(release))
    .map(([name, s]) => `${name} (has ${s.releases.join(', ') || 'none'})`);
}

/**
 * The release `deploy rollback [ID]` returns every host to: ID, or the
 * `previous` every host agrees on. Refused (exit 3) before anything is touched
 * when a host lacks it or the hosts disagree: a fleet half on one release and
 * half on another is what a rollback must not produce by guessing.
 */
export function chooseRollbackRelease(
  statuses: ReadonlyMap<string, HostStatus>,
  id?: string,
): string {
  const release = id ?? agreedPrevious(statuses);
  const missing = missingRelease(statuses, release);
  if (missing.length > 0)
    throw new BlockedError(
      `rollback: release ${release} is not on ${missing.join('; ')}; nothing was touched`,
    );
  return release;
}

function agreedPrevious(statuses: ReadonlyMap<string, HostStatus>): string {
  const byPrevious = new Map<string, string[]>();
  for (const [name, s] of statuses) {
    const key = s.previous ?? '(none)';
    byPrevious.set(key, [...(byPrevious.get(key) ?? []), name]);
  }
  const [only] = byPrevious.keys();
  if (byPrevious.size === 1 && only !== undefined && only !== '(none)') return only;
  const said = [...byPrevious.entries()].map(([prev, hosts]) => `${prev} on ${hosts.join(', ')}`);
  throw new BlockedError(
    byPrevious.size === 1
      ? `rollback: no host has a previous release; name one: deploy rollback ID`
      : `rollback: the hosts disagree on the previous release (${said.join('; ')}); name one: deploy rollback ID; nothing was touched`,
  );
}

/**
 * Ask every host of the plan what it has, read-only, and choose. Nothing is
 * touched: the rollout's own preflight follows.
 */
export async function resolveRollback(
  deps: RolloutDeps,
  hosts: readonly HostConfig[],
  id: string | undefined,
): Promise<string> {
  if (id !== undefined && !RELEASE_ID.test(id))
    throw new UsageError(
      `release ${JSON.stringify(id)}: use letters, digits, '.', '_' and '-' (at most 128)`,
    );
  const problems: string[] = [];
  const statuses = new Map<string, HostStatus>();
  await Promise.all(
    hosts.map(async (host) => {
      try {
        statuses.set(host.name, await (await deps.agent(host)).run('status', {}));
      } catch (error) {
        problems.push(messageOf(error));
      }
    }),
  );
  if (problems.length > 0) throw new BlockedError(`rollback: ${problems.sort().join('; ')}`);
  // in the fleet's order, so messages list hosts as deploy.yml does
  return chooseRollbackRelease(
    new Map(hosts.flatMap((h) => (statuses.has(h.name) ? [[h.name, statuses.get(h.name)!]] : []))),
    id,
  );
}
