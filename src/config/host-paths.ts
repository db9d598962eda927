import path from 'node:path';
import type { RuleProblem } from './where.js';

/**
 * Host paths that setup makes and, with ssh.sudo, hands to ssh.user as root
 * (setup/root-steps.ts): `host.lock: /run/api.lock` once meant
 * `chown deploy: /run`, and `..` walks out of any directory the rule names.
 * Refused at load, with the key: a path with `.` or `..` segments, a system
 * directory or anything under one whose contents root trusts, and a lock
 * whose directory (which setup makes and hands over) is one.
 */

type HostKey = 'root' | 'state' | 'lock' | 'agent';

/** the defaults normalize.ts fills in, for rules between the paths */
export function hostDefaults(service: string): Record<HostKey, string> {
  return {
    root: `/srv/handoff/${service}`,
    lock: `/run/handoff/${service}.lock`,
    state: `/run/handoff/${service}`,
    agent: '/opt/handoff',
  };
}

/** directories root reads its programs, config and boot from: nothing of handoff's goes there */
const systemTrees = ['/etc', '/usr', '/boot', '/proc', '/sys', '/dev', '/bin', '/sbin', '/root'];
const systemTreePattern = /^\/lib(32|64|x32)?(\/|$)/;
/** shared directories: a place under them is fine, the directory itself is not handoff's */
const systemDirs = [
  '/',
  '/run',
  '/run/lock',
  '/run/user',
  '/var',
  '/var/lib',
  '/var/log',
  '/var/run',
  '/var/lock',
  '/var/spool',
  '/var/tmp',
  '/var/cache',
  '/srv',
  '/opt',
  '/home',
  '/tmp',
  '/mnt',
  '/media',
];

export function systemDirProblem(dir: string): string | undefined {
  const clean = dir.length > 1 ? dir.replace(/\/+$/, '') : dir;
  const tree = systemTrees.find((t) => clean === t || clean.startsWith(`${t}/`));
  if (tree || systemTreePattern.test(clean))
    return `${clean} is in ${tree ?? '/lib'}, a system directory root trusts`;
  if (systemDirs.includes(clean)) return `${clean} is a system directory`;
  return undefined;
}

/** directories every local user may write: a lock there can be planted or held by anyone (rules.ts says so) */
export const sharedDirs = ['/tmp', '/var/tmp', '/dev/shm', '/run/lock', '/var/lock'];

function pathProblem(key: HostKey, value: string): string | undefined {
  if (value.split('/').some((s) => s === '..' || s === '.'))
    return 'must not contain . or .. segments: write the path it means';
  const own = systemDirProblem(value);
  if (own)
    return `${own}; setup would make it and hand it to ssh.user: use a directory of its own such as ${hostDefaults('<service>')[key]}`;
  if (key === 'lock' && !sharedDirs.includes(path.posix.dirname(value))) {
    const dir = systemDirProblem(path.posix.dirname(value));
    if (dir)
      return `its directory ${dir}, which setup would make and hand to ssh.user: use a directory of its own such as /run/handoff/<service>.lock`;
  }
  if (key === 'agent') {
    const bin = systemDirProblem(`${value.replace(/\/+$/, '')}/bin`);
    if (bin) return `its bin directory ${bin}: use a directory of its own such as /opt/handoff`;
  }
  return undefined;
}

/** what a sudoers argument carries without escapes beyond the few root-steps.ts writes */
const SUDO_PATH = /^[A-Za-z0-9._@+/-]+$/;

/**
 * With ssh.sudo, root runs `mkdir -p` and `chown -h` on these directories. One
 * that lies deeper than a direct child of another it hands over is reached
 * through a directory ssh.user owns, and a symlink planted there would lead
 * root's mkdir and chown anywhere.
 */
function sudoProblem(key: HostKey, dirs: Record<HostKey, string>): string | undefined {
  if (!SUDO_PATH.test(dirs[key]))
    return 'with ssh.sudo, may hold only letters, digits and . _ @ + - / (it is written into the sudoers rule)';
  const own = ownedDir(key, dirs);
  const keys: HostKey[] = ['root', 'state', 'lock', 'agent'];
  const outer = keys.find((k) => {
    const other = ownedDir(k, dirs);
    return other !== own && own.startsWith(`${other}/`) && path.posix.dirname(own) !== other;
  });
  if (outer)
    return `with ssh.sudo, ${own} is below ${ownedDir(outer, dirs)} (host.${outer}), which ssh.user owns, by more than one level: root would make it through a directory ssh.user controls; put it directly in it or elsewhere`;
  return undefined;
}

function ownedDir(key: HostKey, dirs: Record<HostKey, string>): string {
  const value = dirs[key].replace(/\/+$/, '');
  if (key === 'lock') return path.posix.dirname(value);
  return key === 'agent' ? `${value}/bin` : value;
}

export function hostPathRules(doc: Readonly<Record<string, unknown>>): RuleProblem[] {
  const host = record(doc.host);
  const service = typeof doc.service === 'string' ? doc.service : 'service';
  const dirs = hostDefaults(service);
  const given = new Set<HostKey>();
  for (const key of ['root', 'state', 'lock', 'agent'] as const) {
    const value = host[key];
    if (typeof value !== 'string' || !value.startsWith('/')) continue;
    dirs[key] = value;
    given.add(key);
  }
  const problems: RuleProblem[] = [];
  for (const key of given) {
    const message = pathProblem(key, dirs[key]);
    if (message) problems.push({ path: ['host', key], message });
  }
  if (problems.length > 0 || record(doc.ssh).sudo !== true) return problems;
  for (const key of given) {
    const message = sudoProblem(key, dirs);
    if (message) problems.push({ path: ['host', key], message });
  }
  return problems;
}

function record(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
