import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ensureLabUser } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';

/**
 * `ssh.sudo: true` with a non-root user on fresh hosts: the handoff
 * directories (private tmpfs owned by root in each lab host) are emptied
 * first, so setup can only succeed through sudo. One lab user has a NOPASSWD
 * rule, the other none.
 */

const USER = 'handoff-lab';
const NO_RULE = 'handoff-lab-nopw';
const HOSTS = ['web-1', 'web-2'];

let fleet: Fleet;

async function configure(user: string): Promise<void> {
  const doc = parse(await readFile(fleet.configPath, 'utf8')) as { ssh: Record<string, unknown> };
  doc.ssh.user = user;
  doc.ssh.sudo = true;
  await writeFile(fleet.configPath, stringify(doc, { lineWidth: 0 }));
}

beforeAll(async () => {
  await ensureLabUser(USER, { nopasswd: true });
  await ensureLabUser(NO_RULE, { nopasswd: false });
  fleet = await startFleet({
    hosts: 2,
    subnet: '127.0.51',
    workDir: '/tmp/handoff-e2e-51',
    release: null,
  });
  // a fresh host: what the root setup of startFleet made is gone
  for (const host of HOSTS) {
    const wipe = await fleet.lab.inHost(host, [
      'sh',
      '-c',
      'rm -rf /srv/handoff/* /run/handoff/* /var/lock/handoff/* /opt/handoff/* /etc/handoff/* /etc/cron.d/*',
    ]);
    expect(wipe.exitCode, wipe.stderr).toBe(0);
  }
}, 180_000);
afterAll(async () => {
  await fleet?.stop();
});

describe('ssh.sudo with a non-root user', () => {
  it('without a NOPASSWD rule, setup fails each host with one line saying what to add', async () => {
    await configure(NO_RULE);
    const r = await fleet.deploy(['setup']);
    expect(r.code).not.toBe(0);
    for (const host of HOSTS)
      expect(r.stdout).toContain(
        `✗ ${host}: ssh.user ${NO_RULE} cannot run sudo without a password on ${host}: add a NOPASSWD rule for mkdir, chown, install, mv (docs/ssh.md)`,
      );
    const nothing = await fleet.lab.inHost('web-1', ['ls', '-A', '/etc/handoff', '/opt/handoff']);
    expect(nothing.stdout.replace(/^\S+:$/gm, '').trim()).toBe('');
  });

  it('sets the hosts up through sudo, root files owned by root, the agent’s by the user', async () => {
    await configure(USER);
    const r = await fleet.deploy(['setup']);
    expect(r.code, `${r.stderr}${r.stdout}`).toBe(0);
    const owners = await fleet.lab.inHost('web-1', [
      'stat',
      '-c',
      '%U %a %n',
      '/etc/cron.d/handoff-lab',
      '/etc/handoff/lab.json',
      '/opt/handoff/bin/deploy',
      '/srv/handoff/lab',
      '/run/handoff/lab',
    ]);
    expect(owners.stdout.trim().split('\n')).toEqual([
      'root 644 /etc/cron.d/handoff-lab',
      `${USER} 600 /etc/handoff/lab.json`,
      'root 755 /opt/handoff/bin/deploy',
      `${USER} 755 /srv/handoff/lab`,
      `${USER} 755 /run/handoff/lab`,
    ]);
    const cron = await fleet.lab.inHost('web-1', ['cat', '/etc/cron.d/handoff-lab']);
    expect(cron.stdout).toContain(` ${USER} '/opt/handoff/bin/deploy' 'watchdog'`);
    const again = await fleet.deploy(['setup']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.match(/unchanged/g)).toHaveLength(2);
  });

  it('rolls a release out whose services run as the user', async () => {
    for (const host of HOSTS) {
      await fleet.lab.stageRelease(host, 'r1');
      // staged from outside as root; a release the user's agent writes .env into
      await fleet.lab.inHost(host, ['chown', '-R', `${USER}:`, '/srv/handoff/lab/releases']);
    }
    const r = await fleet.deploy(['rollout', '--release', 'r1']);
    expect(r.code, `${r.stderr}${r.stdout}`).toBe(0);
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r1', 'r1']);
    const owner = await fleet.lab.inHost('web-2', [
      'sh',
      '-c',
      'ps -o user= -p "$(cat /run/handoff/lab/app.pid)"',
    ]);
    expect(owner.stdout.trim()).toBe(USER);
  });
});
