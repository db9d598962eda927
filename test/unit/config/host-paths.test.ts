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

describe('host paths setup makes', () => {
  it('refuses a lock directly in /run, whose directory setup would hand to ssh.user', async () => {
    const [line] = await problemsOf(withHost('  lock: /run/api.lock\n'));
    expect(line).toMatch(
      /^host\.lock: its directory \/run is a system directory, which setup would make and hand to ssh\.user: use a directory of its own such as \/run\/handoff\/<service>\.lock \(FILE:\d+:9\)$/,
    );
  });

  it('refuses a state directory that is /etc, or anything under it', async () => {
    for (const state of ['/etc', '/etc/systemd/system/x.service.d', '/usr/local/bin'])
      expect((await problemsOf(withHost(`  state: ${state}\n`)))[0]).toMatch(
        /^host\.state: \S+ is in \/(etc|usr), a system directory root trusts; setup would make it and hand it to ssh\.user/,
      );
  });

  it('refuses each shared system directory itself', async () => {
    for (const dir of ['/', '/run', '/var', '/srv', '/opt', '/home', '/tmp', '/var/lib/'])
      expect((await problemsOf(withHost(`  root: ${dir}\n`)))[0]).toMatch(
        /^host\.root: \/\S* is a system directory; setup would make it/,
      );
  });

  it('refuses .. and . segments', async () => {
    expect(await problemsOf(withHost('  root: /srv/handoff/../../etc\n'))).toEqual([
      expect.stringMatching(
        /^host\.root: must not contain \. or \.\. segments: write the path it means \(FILE:\d+:9\)$/,
      ),
    ]);
    expect((await problemsOf(withHost('  state: /run/handoff/./api\n')))[0]).toMatch(
      /^host\.state: must not contain/,
    );
  });

  it('refuses an agent whose bin directory would be a system one', async () => {
    expect((await problemsOf(withHost('  agent: /\n')))[0]).toMatch(
      /^host\.agent: \/ is a system directory/,
    );
    expect((await problemsOf(withHost('  agent: /usr\n')))[0]).toMatch(
      /^host\.agent: \/usr is in \/usr/,
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

  it('keeps the defaults and paths of their own, with and without sudo', async () => {
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
