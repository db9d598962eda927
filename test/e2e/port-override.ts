import { expect } from 'vitest';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import { liveReleases, type Fleet } from './fleet-harness.js';
import { watchGroupStates } from './group-states.js';

/** Where the app listens: the port the lab's targets are registered on. */
export const APP_PORT = 8000;
/** The target group's own port, where nothing listens. */
export const GROUP_PORT = 8100;

/** `hosts[].target` with the port written: each host on APP_PORT. */
export const targetsOnAppPort = (fleet: Fleet): Record<string, string> =>
  Object.fromEntries(fleet.lab.hosts.map((h) => [h.name, `${h.address}:${APP_PORT}`]));

/**
 * A rollout to `release` under load through the lab's group whose targets sit
 * on the port override: it deploys every host with 0 failed requests and
 * leaves exactly the (Id, APP_PORT) registrations, nothing added on the
 * group's port. Returns the states each target was seen in, for the caller's
 * own expectations of its balancer type.
 */
export async function rolloutOnPortOverride(
  fleet: Fleet,
  release: string,
): Promise<readonly (readonly string[])[]> {
  const group = fleet.lab.elbv2!.group;
  await fleet.stageEverywhere(release);
  const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
  const ids = fleet.lab.hosts.map((h) => h.address);
  const { result: r, seen } = await watchGroupStates([group], ids, () =>
    fleet.deploy(['rollout', '--release', release]),
  );
  const report = await load.stop();
  expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
  expect(report.failed, formatReport(report)).toBe(0);
  expect(await liveReleases((args) => fleet.deploy(args))).toEqual(ids.map(() => release));
  expect(group.registrations()).toEqual(
    ids.map((id) => ({ id, port: APP_PORT, registered: true })),
  );
  return seen.get(group.name) ?? [];
}
