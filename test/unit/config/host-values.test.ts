import { describe, expect, it } from 'vitest';
import { MemoryLog } from '../../../src/log.js';
import { loadConfig } from '../../../src/config/load.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

/**
 * Values that end up in a cron line, a path or a command on the hosts are
 * refused when deploy.yml is loaded (`deploy check`), not half-way through a
 * setup or a rollout.
 */
describe('deploy.yml values that reach the hosts', () => {
  it('refuses an ssh.user that would write a second root cron line', async () => {
    for (const user of ['"root touch /tmp/pwned; #"', '"deploy\\n* * * * * root sh /tmp/x"'])
      expect(await problemsOf(minimal.replace('user: deploy', `user: ${user}`))).toEqual([
        'ssh.user: must be a user name: up to 32 letters, digits, _, . and -, not starting with a digit, . or - (FILE:3:9)',
      ]);
  });

  it('refuses a watchdog.every that cron cannot run evenly, naming the nearest values', async () => {
    expect(await problemsOf(`${minimal}watchdog:\n  every: 7m\n`)).toEqual([
      'watchdog.every: 7m cannot be run evenly from cron (it must divide a minute or an hour, at most 1h); use 6m or 10m (FILE:20:10)',
    ]);
    expect(await problemsOf(`${minimal}watchdog:\n  every: 2h\n`)).toEqual([
      'watchdog.every: 2h cannot be run evenly from cron (it must divide a minute or an hour, at most 1h); use 1h (FILE:20:10)',
    ]);
  });

  it('keeps watchdog.every when HANDOFF_WATCHDOG_EVERY is one cron cannot run evenly', async () => {
    const log = new MemoryLog();
    const config = await loadConfig(await writeConfig(minimal), {
      env: { HANDOFF_WATCHDOG_EVERY: '7s' },
      log,
    });
    expect(config.watchdog.every).toBe(60_000);
    expect(log.events.map((e) => e.message)).toContain(
      'HANDOFF_WATCHDOG_EVERY: 7s cannot be run evenly from cron (it must divide a minute or an hour, at most 1h); use 6s or 10s; kept watchdog.every = 1m',
    );
  });

  it('refuses a duration longer than a timer can wait (24 days), which would fire at once', async () => {
    expect(await problemsOf(`${minimal}drain:\n  stop_timeout: 700h\n`)).toEqual([
      'drain.stop_timeout: "700h" is longer than 24 days (576h), the most a timer can wait (FILE:20:17)',
    ]);
    const longest = await loadConfig(
      await writeConfig(`${minimal}drain:\n  stop_timeout: 576h\n`),
      {
        env: {},
      },
    );
    expect(longest.drain.stopTimeout).toBe(576 * 3_600_000);
    expect(longest.drain.stopTimeout).toBeLessThan(2 ** 31);
  });

  it('refuses haproxy backend and server names that would add a runtime API command', async () => {
    const haproxy = minimal
      .replace(
        '  kind: static\n',
        '  kind: haproxy\n  socket: /run/haproxy.sock\n  backend: "be_api;shutdown sessions"\n',
      )
      .replace(
        '{ name: web-2, address: 10.0.0.2 }',
        '{ name: web-2, address: 10.0.0.2, target: "web-2\\nset server x/y state maint" }',
      );
    expect(await problemsOf(haproxy)).toEqual([
      "hosts[1].target: is not an haproxy server name (letters, digits, '-', '_', '.' and ':' only) (FILE:6:47)",
      "balancer.backend: is not an haproxy backend name (letters, digits, '-', '_', '.' and ':' only) (FILE:10:12)",
    ]);
  });

  it('puts the lock in root-owned /run/handoff by default, and refuses one in /run/lock', async () => {
    const config = await loadConfig(await writeConfig(minimal), { env: {} });
    expect(config.host.lock).toBe('/run/handoff/api.lock');
    expect(await problemsOf(`${minimal}host:\n  lock: /run/lock/api\n`)).toEqual([
      'host.lock: must not be directly in a directory every user can write (/tmp, /var/tmp, /dev/shm, /run/lock, /var/lock); use a root-owned one such as /run/handoff/<service>.lock (the default) (FILE:20:9)',
    ]);
  });
});
