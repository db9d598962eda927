import type { Config } from '../config/types.js';
import { UsageError } from '../errors.js';
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

export function cronPath(config: Config): string {
  return `/etc/cron.d/handoff-${config.service}`;
}

/**
 * Cron fires at most once a minute: a watchdog that ticks more often runs
 * several spaced ticks per cron run (`--ticks`), a slower one a cron step.
 */
export function cronSchedule(everyMs: number): { schedule: string; ticks: number } {
  const seconds = Math.max(1, Math.round(everyMs / 1000));
  if (seconds < 60) return { schedule: '* * * * *', ticks: Math.max(1, Math.floor(60 / seconds)) };
  const minutes = Math.max(1, Math.round(seconds / 60));
  return { schedule: minutes === 1 ? '* * * * *' : `*/${minutes} * * * *`, ticks: 1 };
}

export function cronEntry(config: Config, hostConfig: string): string {
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
    `# handoff watchdog for ${config.service}: installed by 'deploy setup'; edit deploy.yml, not this file`,
    'PATH=/usr/local/bin:/usr/bin:/bin',
    `${schedule} ${config.ssh.user} ${argv.map(cronWord).join(' ')} >> ${cronWord(log)} 2>&1`,
    '',
  ].join('\n');
}

/**
 * One word of a cron command: quoted for the shell cron hands the line to
 * (remote/quote.ts), and `%`, which cron turns into a newline even inside
 * quotes, escaped for cron. A newline cannot be carried by a cron line at all.
 */
function cronWord(arg: string): string {
  if (arg.includes('\n'))
    throw new UsageError(
      `${JSON.stringify(arg)} contains a newline, which a cron line cannot carry: rename the path`,
    );
  return quoteArg(arg).replaceAll('%', '\\%');
}
