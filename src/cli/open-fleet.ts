import { loadConfig } from '../config/load.js';
import { destinationOf, type ConfigFlags } from './config-flag.js';
import type { Config, HostConfig } from '../config/types.js';
import { selectHosts } from '../rollout/plan.js';
import { readAgent } from './agent-bundle.js';
import { parseHostsFlag } from './fleet-flags.js';
import { Connections } from './connections.js';
import { createOutput, type Output } from './output.js';
export interface FleetFlags extends ConfigFlags {
  readonly hosts?: string;
  readonly json?: boolean;
}

export async function open(
  flags: FleetFlags,
  /** `ssh: false`: a command that reaches no host (`deploy receipt`) */
  options: { checkAgent: boolean; ssh?: boolean } = { checkAgent: true },
): Promise<{ out: Output; config: Config; hosts: HostConfig[]; connections: Connections }> {
  const out = createOutput({ json: flags.json ?? false });
  const config = await loadConfig(flags.config, { log: out, ...destinationOf(flags) });
  const hosts = selectHosts(config.hosts, parseHostsFlag(flags.hosts));
  // every command but setup refuses a host whose agent is not this deploy's
  const expected = options.checkAgent ? (await readAgent()).sha256 : undefined;
  const connections = new Connections(config, out, expected);
  if (options.ssh ?? true) await connections.checkAuth();
  return { out, config, hosts, connections };
}

export { messageOf } from '../errors.js';

export { hostError } from '../errors.js';
