import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

/**
 * Setup makes the host paths and, with ssh.sudo, hands them to ssh.user as
 * root: a path that is a system directory, or walks out of one, is refused at
 * load with its key and line, never chowned.
 */
const withHost = (lines: string, sudo = false): string =>
  `${sudo ? minimal.replace('  user: deploy\n', '  user: deploy\n  sudo: true\n') : minimal}host:\n${lines}`;

const PLACES =
  'in /run/handoff or /var/lib/handoff, or below /srv, /opt, /run/lock, /var/lock, /tmp, /var/tmp';

describe('host paths setup makes', () => {
  it('refuses a lock directly in /run, whose directory setup would hand to ssh.user', async () => {
    const [line] = await problemsOf(withHost('  lock: /run/api.lock\n'));
    expect(line).toBe(
      `host.lock: its directory /run is not a place for handoff's own directories (${PLACES}), which setup would make and hand to ssh.user: use a directory of its own such as /run/handoff/<service>.lock (FILE:20:9)`,
    );
  });

  it('reads a path with doubled slashes as the kernel does: //run is /run, //usr/local is /usr/local', async () => {
    expect((await problemsOf(withHost('  lock: //run/app.lock\n')))[0]).toMatch(
      /^host\.lock: its directory \/run is not a place for handoff's own directories/,
    );
    expect((await problemsOf(withHost('  agent: //usr/local\n', true)))[0]).toMatch(
      /^host\.agent: \/usr\/local is not a place for handoff's own directories .*: use a directory of its own such as \/opt\/handoff/,
    );
    expect((await problemsOf(withHost('  root: /srv//..//etc\n')))[0]).toMatch(
      /^host\.root: must not contain \.\. segments/,
    );
  });

  it('accepts only places for handoff’s own directories: a system directory the old deny-list missed is refused', async () => {
    const cases: readonly (readonly ['root' | 'state', string])[] = [
      ['state', '/run/systemd/system'],
      ['root', '/var/lib/dpkg/info'],
      ['state', '/etc/systemd/system/x.service.d'],
      ['root', '/usr/local/bin'],
      ['root', '/home/deploy/app'],
      ['state', '/var/lib/api'],
    ];
    for (const [key, dir] of cases)
      expect((await problemsOf(withHost(`  ${key}: ${dir}\n`)))[0]).toBe(
        `host.${key}: ${dir} is not a place for handoff's own directories (${PLACES}); setup would make it and hand it to ssh.user: use a directory of its own such as ${key === 'root' ? '/srv/handoff/<service>' : '/run/handoff/<service>'} (FILE:20:${key.length + 5})`,
      );
  });

  it('refuses each shared directory itself', async () => {
    for (const dir of ['/', '/run', '/var', '/srv', '/opt', '/home', '/tmp', '/var/lib/', '//srv/'])
      expect((await problemsOf(withHost(`  root: ${dir}\n`)))[0]).toMatch(
        /^host\.root: \/\S* is not a place for handoff's own directories/,
      );
  });

  it('refuses .. segments, and resolves . and doubled or trailing slashes before the path goes anywhere', async () => {
    expect(await problemsOf(withHost('  root: /srv/handoff/../../etc\n'))).toEqual([
      expect.stringMatching(
        /^host\.root: must not contain \.\. segments: write the path it means \(FILE:\d+:9\)$/,
      ),
    ]);
    const file = await writeConfig(
      withHost(
        '  root: //srv//apps/./api/\n  state: /run/handoff/./api\n  agent: /opt//handoff//\n',
        true,
      ),
    );
    expect((await loadConfig(file, { env: {} })).host).toEqual({
      root: '/srv/apps/api',
      state: '/run/handoff/api',
      lock: '/run/handoff/api.lock',
      agent: '/opt/handoff',
    });
  });

  it('refuses an agent whose bin directory would be a system one', async () => {
    expect((await problemsOf(withHost('  agent: /\n')))[0]).toMatch(
      /^host\.agent: \/ is not a place for handoff's own directories/,
    );
    expect((await problemsOf(withHost('  agent: /usr\n')))[0]).toMatch(
      /^host\.agent: \/usr is not a place/,
    );
  });

  it('with ssh.sudo, refuses a directory root would reach through one ssh.user owns', async () => {
    expect(
      await problemsOf(
        withHost('  lock: /run/handoff/api.lock\n  state: /run/handoff/api/inner\n', true),
      ),
    ).toEqual([
      expect.stringMatching(
        /^host\.state: with ssh\.sudo, \/run\/handoff\/api\/inner is below \/run\/handoff \(host\.lock\), which ssh\.user owns, by more than one level/,
      ),
    ]);
    expect((await problemsOf(withHost('  root: /srv/h,a:n=d\n', true)))[0]).toMatch(
      /^host\.root: with ssh\.sudo, may hold only letters/,
    );
  });

  it('keeps the defaults, the lab’s paths and paths of their own, with and without sudo', async () => {
    for (const lines of [
      '  lock: /var/lock/handoff/api\n',
      '  root: /var/lib/handoff/api\n  state: /var/lib/handoff/api-state\n',
      '  root: /tmp/handoff-x/root\n  lock: /tmp/handoff-x/lock/api\n',
    ])
      await expect(
        loadConfig(await writeConfig(withHost(lines, true)), { env: {} }),
      ).resolves.toBeDefined();
    for (const sudo of [false, true]) {
      const file = await writeConfig(
        withHost(
          '  root: /srv/apps/api\n  state: /run/handoff/api\n  lock: /run/handoff/api.lock\n  agent: /opt/handoff\n',
          sudo,
        ),
      );
      const config = await loadConfig(file, { env: {} });
      expect(config.host).toEqual({
        root: '/srv/apps/api',
        state: '/run/handoff/api',
        lock: '/run/handoff/api.lock',
        agent: '/opt/handoff',
      });
    }
  });
});
