import path from 'node:path';
import type { Config } from '../config/types.js';

/**
 * `ssh.sudo: true`: everything setup runs as root, as exact argv fixed by
 * deploy.yml, and the sudoers file that allows exactly these and nothing
 * else (`deploy setup --print-sudoers`). A rule for bare `install` or `mv`
 * is root for whoever runs as ssh.user (a service, the CI's key):
 * `install -m 4755 -o root /bin/sh …`. So root here only makes and hands
 * over directories and renames the host config into /etc/handoff; it never
 * copies bytes ssh.user chose into a place root reads. The cron entry, which
 * root's cron does read, is installed by root itself (`--print-cron`).
 */

type RootConfig = Pick<Config, 'service' | 'ssh' | 'host'>;

/** The directories the agent writes as ssh.user: setup makes them as root and hands them over. */
export function ownedDirs(config: Pick<Config, 'host'>): string[] {
  const { root, state, lock, agent } = config.host;
  return unique([root, state, path.dirname(lock), `${agent}/bin`]);
}

/** where ssh.user leaves the host config for root to rename into place: its own host.root */
export function stagedHostConfig(config: Pick<Config, 'host'>): string {
  return `${config.host.root}/.host-config.json`;
}

export function rootSteps(config: RootConfig, hostConfigPath: string): string[][] {
  const owned = ownedDirs(config);
  return [
    ['mkdir', '-p', '-m', '0755', '--', ...unique([...owned, path.dirname(hostConfigPath)])],
    // -h: a directory ssh.user swapped for a symlink hands over the link, never its target
    ['chown', '-h', `${config.ssh.user}:`, '--', ...owned],
    // a rename: the final name is never followed, and no byte is read as root
    ['mv', '-f', '-T', '--', stagedHostConfig(config), hostConfigPath],
  ];
}

/** Where each command lives: sudo matches the rule's absolute path. */
const BIN: Readonly<Record<string, string>> = {
  mkdir: '/usr/bin/mkdir',
  chown: '/usr/bin/chown',
  mv: '/usr/bin/mv',
};

export function sudoersPath(config: Pick<Config, 'service'>): string {
  return `/etc/sudoers.d/handoff-${config.service}`;
}

/**
 * One line per root step, with its whole argv: sudo then refuses the same
 * command with any other argument. Characters sudoers reads as syntax or as
 * a wildcard in an argument are escaped, so a path matches only itself.
 */
export function sudoersFile(config: RootConfig, hostConfigPath: string): string {
  const lines = rootSteps(config, hostConfigPath).map(([cmd, ...args]) => {
    const bin = BIN[cmd ?? ''] ?? cmd ?? '';
    return `${config.ssh.user} ALL=(root) NOPASSWD: ${[bin, ...args.map(sudoersArg)].join(' ')}`;
  });
  return [
    `# ${sudoersPath(config)}: what 'deploy setup' runs as root for ${config.service}, and nothing else`,
    '# from: deploy setup --print-sudoers (install as root, mode 0440; check with visudo -cf FILE)',
    ...lines,
    '',
  ].join('\n');
}

function sudoersArg(arg: string): string {
  return arg.replace(/[\\,:=*?[\]]/g, (c) => `\\${c}`);
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
