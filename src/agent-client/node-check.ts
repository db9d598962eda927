import { INSTALL_NODE, nodeVersionProblem } from '../node-version.js';
import { mapLimit } from '../map-limit.js';
import type { HostAgent } from './host-agent.js';
import { excerpt } from '../safe-text.js';

const FIX = `${INSTALL_NODE} first on the PATH of ssh.user`;

/**
 * What is wrong with the node a host runs the agent with (its `node` on the
 * SSH session's PATH, as the agent's `#!/usr/bin/env node` finds it), or
 * undefined. Asked with `node -p`, not through the agent: the agent is built
 * for Node 22.12 and an older node may not even parse it. The
 * caller names the host.
 */
export async function hostNodeProblem(
  agent: Pick<HostAgent, 'nodeVersion'>,
): Promise<string | undefined> {
  const r = await agent.nodeVersion();
  if (r.code === 127) return `no node on the PATH of ssh.user: ${FIX}`;
  if (r.code !== 0) {
    const said = excerpt(r.stderr, 120);
    return `node -p process.versions.node failed (exit ${r.code}${said ? `: ${said}` : ''}): ${FIX}`;
  }
  return nodeVersionProblem(r.stdout, 'node', FIX);
}

/**
 * Each host's node asked at once (at most `limit` in flight): one line per
 * host whose node is too old or missing, `web-2: node is 20.11.0, …`, in the
 * hosts' order. A host that cannot be asked at all (unreachable) is not
 * judged here: the caller's next step reports it as it reports any failure.
 */
export async function oldNodes<H extends { readonly name: string }>(
  hosts: readonly H[],
  agentOf: (host: H) => Promise<Pick<HostAgent, 'nodeVersion'>>,
  limit = 8,
): Promise<string[]> {
  const lines = await mapLimit(hosts, limit, async (host) => {
    const problem = await agentOf(host)
      .then(hostNodeProblem)
      .catch(() => undefined);
    return problem && `${host.name}: ${problem}`;
  });
  return lines.filter((line): line is string => line !== undefined);
}
