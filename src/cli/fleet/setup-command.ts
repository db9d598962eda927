import { oldNodes } from '../../agent-client/node-check.js';
import { BlockedError, UsageError } from '../../errors.js';
import { sudoersFile } from '../../setup/root-steps.js';
import { cronEntry, isCronNode } from '../../setup/setup-files.js';
import { mapLimit } from '../../map-limit.js';
import { setupHost } from '../../setup/setup.js';
import { readAgentBundle } from '../agent-bundle.js';
import { createOutput } from '../output.js';
import { hostConfigPath, plainConfig } from '../connections.js';
import { open, hostError, type FleetFlags } from '../open-fleet.js';
/**
 * What root installs once under ssh.sudo: the sudoers file setup's root
 * steps need, or the cron entry setup may not write (setup/root-steps.ts).
 * Built from deploy.yml alone: no host is contacted.
 */
export async function printRootFiles(
  flags: Pick<FleetFlags, 'config' | 'destination'> & {
    printSudoers?: boolean;
    printCron?: boolean;
    node?: string;
  },
): Promise<void> {
  const plain = await plainConfig(flags);
  if (flags.printSudoers && flags.printCron)
    throw new UsageError('--print-sudoers and --print-cron: give one of them');
  if (flags.printSudoers && !plain.ssh.sudo)
    throw new UsageError(
      '--print-sudoers: ssh.sudo is off in deploy.yml, so setup runs nothing through sudo; set ssh.sudo: true first',
    );
  if (flags.node !== undefined && !isCronNode(flags.node))
    throw new UsageError(
      `--node ${JSON.stringify(flags.node)}: expected the absolute path of a node binary (…/bin/node, letters, digits and . _ @ + - /)`,
    );
  const text = flags.printSudoers
    ? sudoersFile(plain, hostConfigPath(plain))
    : cronEntry(plain, hostConfigPath(plain), flags.node);
  createOutput({ json: false }).raw(text.trimEnd());
}

export async function runSetup(flags: FleetFlags): Promise<void> {
  const { out, hosts, connections } = await open(flags, { checkAgent: false });
  try {
    const bundle = await readAgentBundle();
    // the host config and the cron line, both from deploy.yml without the operator's overrides
    const plain = await plainConfig(flags);
    const input = {
      config: plain,
      hostConfigPath: hostConfigPath(plain),
      agentBundle: bundle.content,
      agentLibs: bundle.libs,
      log: out,
    };
    // a host whose node cannot run the agent refuses the whole setup before any host
    // changes: a fleet half on the new agent could not roll out either
    const old = await oldNodes(hosts, (h) => connections.agent(h));
    if (old.length > 0) {
      for (const line of old) out.text(`✗ ${line}`);
      out.result(false, { refused: old });
      throw new BlockedError(
        `setup refused, nothing changed on any host: ${old.length === 1 ? 'a host runs' : `${old.length} hosts run`} a node older than 22.12`,
      );
    }
    const results = await mapLimit(hosts, 8, async (host) => {
      try {
        return await setupHost(
          host,
          await connections.transport(host),
          await connections.agent(host),
          input,
        );
      } catch (error) {
        return { host: host.name, ok: false, changed: [], error: hostError(host.name, error) };
      }
    });
    for (const r of results)
      out.text(
        `${r.ok ? '✓' : '✗'} ${r.host}: ${r.ok ? (r.changed.length ? `installed ${r.changed.join(', ')}` : 'unchanged') : r.error}`,
      );
    out.result(
      results.every((r) => r.ok),
      { hosts: results },
    );
    const failed = results.filter((r) => !r.ok);
    if (failed.length > 0)
      throw new BlockedError(`setup failed on ${failed.map((r) => r.host).join(', ')}`);
  } finally {
    await connections.close();
  }
}
