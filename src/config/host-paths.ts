import path from 'node:path';
import type { RuleProblem } from './kit/where.js';

/**
 * Host paths that setup makes and, with ssh.sudo, hands to ssh.user as root
 * (setup/root-steps.ts): `host.lock: /run/api.lock` once meant
 * `chown deploy: /run`, `..` walks out of any directory the rule names, and
 * `//run` is `/run` to the kernel but not to a rule that compares strings.
 * So every path is cleaned first (one slash between segments, `.` resolved,
 * no trailing slash; `..` refused), the rules read the clean path and
 * normalize.ts hands only it on. Every directory setup makes and hands over
 * must lie in a place for handoff's own directories (an allow-list: a
 * deny-list of system directories always misses one, `/run/systemd/system`,
 * `/var/lib/dpkg/info`).
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

/**
 * A host path as every rule and command sees it: `//run/./app.lock/` is
 * `/run/app.lock`. undefined for one with a `..` segment, which is refused.
 */
export function cleanHostPath(value: string): string | undefined {
  if (value.split('/').includes('..')) return undefined;
  const clean = path.posix.normalize(value);
  return clean.length > 1 ? clean.replace(/\/+$/, '') : clean;
}

/** handoff's own: the directory itself or anything below */
const ownTrees = ['/run/handoff', '/var/lib/handoff'];
/** places for a site's own directories: anything below, never the directory itself */
const siteTrees = ['/srv', '/opt', '/run/lock', '/var/lock', '/tmp', '/var/tmp'];

/** where host paths may go, as a refusal says it */
export const HOST_PATH_PLACES = `in ${ownTrees.join(' or ')}, or below ${siteTrees.join(', ')}`;

/** Why setup may not make `dir` and hand it to ssh.user, or undefined when it may. */
export function notHandoffsDir(dir: string): string | undefined {
  const under = (tree: string) => dir.startsWith(`${tree}/`);
  if (ownTrees.some((t) => dir === t || under(t)) || siteTrees.some(under)) return undefined;
  return `${dir} is not a place for handoff's own directories (${HOST_PATH_PLACES})`;
}

/** directories every local user may write: a lock there can be planted or held by anyone (rules.ts says so) */
export const sharedDirs = ['/tmp', '/var/tmp', '/dev/shm', '/run/lock', '/var/lock'];

function pathProblem(key: HostKey, value: string): string | undefined {
  const fix = `use a directory of its own such as ${hostDefaults('<service>')[key]}`;
  if (key !== 'lock') {
    const own = notHandoffsDir(value);
    return own && `${own}; setup would make it and hand it to ssh.user: ${fix}`;
  }
  // a lock directly in a shared directory is rules.ts's lockNotShared
  const dir = path.posix.dirname(value);
  const problem = sharedDirs.includes(dir) ? undefined : notHandoffsDir(dir);
  return problem && `its directory ${problem}, which setup would make and hand to ssh.user: ${fix}`;
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
  const value = dirs[key];
  if (key === 'lock') return path.posix.dirname(value);
  return key === 'agent' ? `${value}/bin` : value;
}

export function hostPathRules(doc: Readonly<Record<string, unknown>>): RuleProblem[] {
  const host = record(doc.host);
  const service = typeof doc.service === 'string' ? doc.service : 'service';
  const dirs = hostDefaults(service);
  const given = new Set<HostKey>();
  const problems: RuleProblem[] = [];
  for (const key of ['root', 'state', 'lock', 'agent'] as const) {
    const value = host[key];
    if (typeof value !== 'string' || !value.startsWith('/')) continue;
    const clean = cleanHostPath(value);
    if (clean === undefined) {
      problems.push({
        path: ['host', key],
        message: 'must not contain .. segments: write the path it means',
      });
      continue;
    }
    dirs[key] = clean;
    given.add(key);
  }
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
