import { describe, expect, it } from 'vitest';
import { rootSteps, sudoersFile } from '../../../src/setup/root-steps.js';
import { privileged, stepFailed, sudoProblem } from '../../../src/setup/sudo.js';
import { testConfig } from '../../support/config.js';

const plain = testConfig();
const sudo = testConfig({ ssh: { ...testConfig().ssh, user: 'deploy', sudo: true } });
const words = (argv: readonly string[]): string => argv.join(' ');

describe('ssh.sudo', () => {
  it('runs a privileged step through sudo -n, and as it is without sudo', () => {
    const argv = ['mkdir', '-p', '--', '/etc/handoff'];
    expect(words(privileged(sudo, argv))).toBe('sudo -n -- mkdir -p -- /etc/handoff');
    expect(privileged(plain, argv)).toEqual(argv);
  });

  it('runs as root only mkdir, chown -h and one rename, each with every argument fixed', () => {
    expect(rootSteps(sudo, '/etc/handoff/api.json').map(words)).toEqual([
      'mkdir -p -m 0755 -- /srv/handoff/api /run/handoff/api /var/lock/handoff /opt/handoff/bin /etc/handoff',
      'chown -h deploy: -- /srv/handoff/api /run/handoff/api /var/lock/handoff /opt/handoff/bin',
      'mv -f -T -- /srv/handoff/api/.host-config.json /etc/handoff/api.json',
    ]);
  });

  it('prints a sudoers file allowing exactly those commands, no bare install, mv or wildcard', () => {
    const text = sudoersFile(sudo, '/etc/handoff/api.json');
    const rules = text.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(rules).toEqual([
      'deploy ALL=(root) NOPASSWD: /usr/bin/mkdir -p -m 0755 -- /srv/handoff/api /run/handoff/api /var/lock/handoff /opt/handoff/bin /etc/handoff',
      'deploy ALL=(root) NOPASSWD: /usr/bin/chown -h deploy\\: -- /srv/handoff/api /run/handoff/api /var/lock/handoff /opt/handoff/bin',
      'deploy ALL=(root) NOPASSWD: /usr/bin/mv -f -T -- /srv/handoff/api/.host-config.json /etc/handoff/api.json',
    ]);
    expect(text).toMatch(/^# \/etc\/sudoers\.d\/handoff-api: /);
  });

  it('escapes what sudoers would read as syntax or a wildcard in a path', () => {
    const odd = testConfig({
      ssh: sudo.ssh,
      host: {
        ...sudo.host,
        root: '/srv/a*b',
        state: '/run/x,y',
        lock: '/run/l=k/z',
        agent: '/opt/[h]',
      },
    });
    const text = sudoersFile(odd, '/etc/handoff/api.json');
    expect(text).toContain('/srv/a\\*b /run/x\\,y /run/l\\=k /opt/\\[h\\]/bin');
  });

  it('turns sudo asking for a password into one line naming the user, the host and the rule', () => {
    expect(sudoProblem(sudo, 'web-1', 'sudo: a password is required\n')).toBe(
      "ssh.user deploy cannot run setup's root steps through sudo without a password on web-1: install the output of 'deploy setup --print-sudoers' as /etc/sudoers.d/handoff-api (docs/ssh.md)",
    );
    expect(
      sudoProblem(
        sudo,
        'web-1',
        "Sorry, user deploy is not allowed to execute '/usr/bin/mkdir' as root",
      ),
    ).toMatch(
      /^ssh\.user deploy may not run setup's root steps through sudo on web-1: install the output of 'deploy setup --print-sudoers' .*; a changed host path needs the new rule$/,
    );
  });

  it('says sudo is missing when the host has none', () => {
    expect(sudoProblem(sudo, 'web-2', 'sh: 1: sudo: not found')).toMatch(
      /^sudo is not installed on web-2: /,
    );
  });

  it('leaves an unrelated failure to its own message', () => {
    expect(
      sudoProblem(sudo, 'web-1', 'mkdir: cannot create directory: Read-only file system'),
    ).toBe(undefined);
    expect(
      stepFailed(
        sudo,
        'web-1',
        'cannot create the host directories',
        'mkdir: Read-only file system\nmore',
      ).message,
    ).toBe('cannot create the host directories: mkdir: Read-only file system');
  });

  it('does not blame sudo when ssh.sudo is off', () => {
    expect(
      stepFailed(
        plain,
        'web-1',
        'cannot create the host directories',
        'sudo: a password is required',
      ).message,
    ).toBe('cannot create the host directories: sudo: a password is required');
  });
});
