import path from 'node:path';
import { cronPlan } from '../config/cron-every.js';
import type { Config } from '../config/types.js';
import { UsageError } from '../errors.js';
import { COMPILE_CACHE_DIR } from '../host/compile-cache.js';
import { quoteArg } from '../remote/quote.js';

/** What `deploy setup` writes on a host, as data: path, content, mode. */
export interface SetupFile {
  readonly path: string;
  readonly content: string | Buffer;
  readonly mode: number;
  readonly what: string;
}

export function agentPath(config: Config): string {
  return `${config.host.agent}/bin/deploy`;
}

/** node's compile cache of the agent's chunks: beside the agent, where its entry keeps it */
export function compileCachePath(config: Config): string {
  return path.posix.join(path.posix.dirname(agentPath(config)), COMPILE_CACHE_DIR);
}

export function cronPath(config: Config): string {
  return `/etc/cron.d/handoff-${config.service}`;
}

/**
 * Cron fires at most once a minute: a watchdog that ticks more often runs
 * several spaced ticks per cron run (`--ticks`), a slower one a cron step.
 * A value cron cannot run evenly is refused (config/cron-every.ts).
 */
export function cronSchedule(everyMs: number): { schedule: string; ticks: number } {
  const plan = cronPlan(everyMs);
  if (!plan.ok) throw new UsageError(`watchdog.every: ${plan.reason}`);
  return { schedule: plan.schedule, ticks: plan.ticks };
}

/** cron's own PATH for the watchdog when setup has not found a node elsewhere */
export const CRON_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];
/** a node path a cron PATH line can carry as it is */
const NODE_PATH = /^\/[A-Za-z0-9._+@/-]+\/node$/;
export const isCronNode = (node: string): boolean => NODE_PATH.test(node);

/**
 * The PATH line of the cron entry: the directory of the node that ssh.user's
 * SSH session found (what setup checked, and what runs the agent over SSH)
 * first, so the watchdog's `#!/usr/bin/env node` runs that same node and not
 * another one cron's short PATH finds. Without one, or one already on it,
 * cron's usual PATH.
 */
export function cronPathLine(node?: string): string {
  const dir = node && isCronNode(node) ? path.posix.dirname(node) : undefined;
  const dirs = dir && !CRON_PATH.includes(dir) ? [dir, ...CRON_PATH] : CRON_PATH;
  return `PATH=${dirs.join(':')}`;
}

export function cronEntry(config: Config, hostConfig: string, node?: string): string {
  const { schedule, ticks } = cronSchedule(config.watchdog.every);
  const argv = [
    agentPath(config),
    'watchdog',
    '-c',
    hostConfig,
    ...(ticks > 1 ? ['--ticks', String(ticks)] : []),
  ];
  const log = `${config.host.root}/watchdog.log`;
  return [
    `# handoff watchdog for ${cronField(config.service, 'service')}: installed by 'deploy setup'; edit deploy.yml, not this file`,
    cronPathLine(node),
    `${schedule} ${cronField(config.ssh.user, 'ssh.user')} ${argv.map(cronWord).join(' ')} >> ${cronWord(log)} 2>&1`,
    '',
  ].join('\n');
}

/**
 * A bare field of the cron line (the user) or of its comment: cron splits
 * fields at whitespace and lines at newlines, so either one would let a value
 * write a field or a line of its own — as root, in /etc/cron.d. The loader
 * refuses such values; this is the last line of defence for a Config built
 * any other way.
 */
function cronField(value: string, key: string): string {
  if (value === '' || /[\s\p{Cc}]/u.test(value))
    throw new UsageError(
      `${key} ${JSON.stringify(value)} contains whitespace or a control character, which a cron line cannot carry`,
    );
  return value;
}

/**
 * One word of a cron command: quoted for the shell cron hands the line to
 * (remote/quote.ts), and `%`, which cron turns into a newline even inside
 * quotes, escaped for cron. A newline or carriage return cannot be carried by
 * a cron line at all.
 */
function cronWord(arg: string): string {
  if (/[\n\r]/.test(arg))
    throw new UsageError(
      `${JSON.stringify(arg)} contains a line break, which a cron line cannot carry: rename the path`,
    );
  return quoteArg(arg).replaceAll('%', '\\%');
}
