import type { AgentOp, ArgsOf } from '../../protocol/ops.js';
import { open, type FleetFlags } from '../open-fleet.js';
import type { Output } from '../output.js';
import {
  hostPrinter,
  namedHosts,
  onEveryHost,
  untilInterrupted,
  type HostRuns,
} from './host-lines.js';

/** The operations a command runs on the hosts named, its output streamed as it comes. */
type OnHostsOp = Extract<AgentOp, 'exec' | 'logs'>;

/** A command on the hosts named (`deploy exec`, `deploy logs`), opened. */
export interface OnHosts {
  readonly out: Output;
  /** `op` on every host named at once, each line printed with its host as it comes; Ctrl-C stops it there */
  stream<K extends OnHostsOp>(op: K, args: ArgsOf<K>): Promise<HostRuns>;
  /** stops listening for Ctrl-C and closes every connection */
  close(): Promise<void>;
}

/**
 * Open the fleet for a command on HOST… (unknown names refused before any
 * connection), with its printer and its Ctrl-C. The caller closes it.
 */
export async function openOnHosts(flags: FleetFlags, names: readonly string[]): Promise<OnHosts> {
  const { out, config, connections } = await open(flags);
  const hosts = namedHosts(config, names);
  const print = hostPrinter(out, hosts);
  const interrupt = untilInterrupted();
  return {
    out,
    stream: (op, args) =>
      onEveryHost(hosts, connections, (agent, host) =>
        agent.stream<OnHostsOp>(op, args, (e) => print(host.name, e.message), interrupt.signal),
      ),
    close: async () => {
      interrupt.dispose();
      await connections.close();
    },
  };
}
