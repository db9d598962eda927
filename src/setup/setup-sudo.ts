import type { Config } from '../config/types.js';
import { OperationError } from '../errors.js';
import type { Transport } from '../remote/transport.js';
import { remoteState, stateOf, staleFiles } from './remote-state.js';
import { rootSteps, stagedHostConfig } from './root-steps.js';
import { cronPath, cronPathLine, type SetupFile } from './setup-files.js';
import { privileged, stepFailed } from './sudo.js';

/**
 * `ssh.sudo`: root makes and hands over the directories and renames the host
 * config into /etc/handoff (root-steps.ts); ssh.user writes everything else
 * into directories it owns. The cron entry is root's to install (cron runs
 * its lines as any user it names): setup checks it first and, when it is not
 * what deploy.yml says, changes nothing and says what root must install.
 * Returns the files it wrote.
 */
export async function setupWithSudo(
  t: Transport,
  config: Config,
  host: string,
  files: readonly SetupFile[],
  hostConfigPath: string,
  /** the node this host's SSH session found: the cron entry's PATH names it */
  node?: string,
): Promise<SetupFile[]> {
  const cron = files.find((f) => f.path === cronPath(config));
  if (cron && (await remoteState(t, [cron.path])).get(cron.path) !== stateOf(cron))
    throw new OperationError(
      `the watchdog's cron entry ${cron.path} on ${host} is missing or not what deploy.yml says, and only root may write it: as root, install the output of 'deploy setup --print-cron${cronPathLine(node) === cronPathLine() ? '' : ` --node ${node}`}' there, mode 0644 (docs/ssh.md)`,
    );
  const [mkdir, chown, rename] = rootSteps(config, hostConfigPath);
  for (const argv of [mkdir, chown]) {
    const r = await t.exec(privileged(config, argv ?? []));
    if (r.code !== 0)
      throw stepFailed(config, host, 'cannot create the host directories', r.stderr);
  }
  const releases = await t.exec(['mkdir', '-p', '--', `${config.host.root}/releases`]);
  if (releases.code !== 0)
    throw stepFailed(config, host, 'cannot create the releases directory', releases.stderr);
  const stale = await staleFiles(
    t,
    files.filter((f) => f !== cron),
  );
  for (const f of stale) {
    if (f.path !== hostConfigPath) {
      await t.put(f.path, f.content, f.mode);
      continue;
    }
    await t.put(stagedHostConfig(config), f.content, f.mode);
    const r = await t.exec(privileged(config, rename ?? []));
    if (r.code !== 0) throw stepFailed(config, host, `cannot install the ${f.what}`, r.stderr);
  }
  return stale;
}
