import { describe, expect, it } from 'vitest';
import { installArgv, privileged, stepFailed, sudoProblem } from '../../../src/fleet/sudo.js';
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

  it("installs a root file beside its destination with root's owner and mode, then renames it", () => {
    const file = { path: '/etc/cron.d/handoff-api', mode: 0o644, owner: 'root' } as const;
    expect(installArgv(sudo, file, '/tmp/u/3').map(words)).toEqual([
      'sudo -n -- install -m 0644 -o root -g root -- /tmp/u/3 /etc/cron.d/handoff-api.handoff-setup',
      'sudo -n -- mv -f -- /etc/cron.d/handoff-api.handoff-setup /etc/cron.d/handoff-api',
    ]);
  });

  it('gives the host config to ssh.user, whose agent reads it', () => {
    const file = { path: '/etc/handoff/api.json', mode: 0o600, owner: 'user' } as const;
    expect(words(installArgv(sudo, file, '/tmp/u/0')[0] ?? [])).toBe(
      'sudo -n -- install -m 0600 -o deploy -- /tmp/u/0 /etc/handoff/api.json.handoff-setup',
    );
  });

  it('turns sudo asking for a password into one line naming the user, the host and the rule', () => {
    expect(sudoProblem('deploy', 'web-1', 'sudo: a password is required\n')).toBe(
      'ssh.user deploy cannot run sudo without a password on web-1: add a NOPASSWD rule for mkdir, chown, install, mv (docs/ssh.md), e.g. /etc/sudoers.d/handoff: deploy ALL=(root) NOPASSWD: /usr/bin/mkdir, /usr/bin/chown, /usr/bin/install, /usr/bin/mv',
    );
  });

  it('says sudo is missing when the host has none', () => {
    expect(sudoProblem('deploy', 'web-2', 'sh: 1: sudo: not found')).toMatch(
      /^sudo is not installed on web-2: /,
    );
  });

  it('leaves an unrelated failure to its own message', () => {
    expect(
      sudoProblem('deploy', 'web-1', 'mkdir: cannot create directory: Read-only file system'),
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
