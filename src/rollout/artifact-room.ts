import type { HostAgent, LocalArtifact } from '../agent-client/host-agent.js';
import type { HostConfig } from '../config/types.js';
import { BlockedError, hostError } from '../errors.js';
import type { ArtifactState } from '../protocol/results.js';
import { megabytes } from './ship.js';

/**
 * Every host of the plan is asked, before the first wave is drained, whether
 * its prepare could take the artifact: a later wave's prepare that fails
 * (the release id live there from another build, no room in releases/) would
 * otherwise stop the rollout with the earlier waves already switched.
 */
export async function checkArtifactRoom(
  hosts: readonly HostConfig[],
  agents: ReadonlyMap<string, HostAgent>,
  release: string,
  artifact: LocalArtifact,
): Promise<void> {
  const problems = await Promise.all(
    hosts.map(async (host) => {
      const agent = agents.get(host.name);
      if (!agent) return undefined;
      try {
        const state = await agent.run('artifact', { release, sha256: artifact.sha256 });
        return refusal(release, artifact, state);
      } catch (error) {
        return hostError(host.name, error);
      }
    }),
  );
  const lines = hosts.flatMap((h, i) => {
    const problem = problems[i];
    return problem ? [`preflight: ${h.name}: ${problem}`] : [];
  });
  if (lines.length > 0) throw new BlockedError(`${lines.join('\n')}; nothing was drained`);
}

/** Why installing this artifact on a host in that state would fail, or undefined. */
export function refusal(
  release: string,
  artifact: LocalArtifact,
  state: ArtifactState,
): string | undefined {
  if (state.present) return undefined;
  if (state.liveOther)
    return `release ${release} is live there from another artifact; ship it under a new release id`;
  const needs = artifact.bytes + (artifact.unpackedBytes ?? artifact.bytes);
  if (state.freeBytes !== undefined && state.freeBytes < needs)
    return `releases/ has ${megabytes(state.freeBytes)} free; the artifact needs ${megabytes(needs)} (${megabytes(artifact.bytes)} uploaded, about ${megabytes(needs - artifact.bytes)} extracted): free space there ('deploy releases' shows each release's size; rollout.keep_releases bounds how many stay)`;
  return undefined;
}
