import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ensureLabUser } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';

/**
 * `ssh.sudo: true` with a non-root user on fresh hosts: the handoff
 * directories (private tmpfs owned by root in each lab host) are emptied
 * first, so setup can only succeed through sudo. One lab user has exactly the
 * rule `deploy setup --print-sudoers` prints, the other none; root installs
 * the cron entry `--print-cron` prints, as docs/ssh.md says.
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

/**
 * What root does once per host, as setup's refusal says: install the output of
 * `deploy setup --print-cron` (with `--node` when the host's node is not on
 * cron's PATH).
 */
async function rootInstallsCron(): Promise<void> {
  const asked = await fleet.deploy(['setup']);
  for (const host of HOSTS) {
    const m = new RegExp(
      `✗ ${host}: the watchdog's cron entry .* install the output of 'deploy setup (--print-cron(?: --node \\S+)?)' there`,
    ).exec(asked.stdout);
    expect(m, asked.stdout).not.toBe(null);
    const cron = await fleet.deploy(['setup', ...(m?.[1] ?? '').split(' ')]);
    expect(cron.code, cron.stderr).toBe(0);
    const put = await fleet.lab.inHost(
      host,
      ['sh', '-c', 'cat > /etc/cron.d/handoff-lab && chmod 0644 /etc/cron.d/handoff-lab'],
      { input: `${cron.stdout.trimEnd()}\n` },
    );
    expect(put.exitCode, put.stderr).toBe(0);
  }
}

/** argv run inside a host as the lab user, not as root */
const asUser = (host: string, argv: readonly string[]) =>
  fleet.lab.inHost(host, ['runuser', '-u', USER, '--', ...argv]);

beforeAll(async () => {
  await ensureLabUser(USER, { nopasswd: false });
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
    await rootInstallsCron();
    const r = await fleet.deploy(['setup']);
    expect(r.code).not.toBe(0);
    for (const host of HOSTS)
      expect(r.stdout).toContain(
        `✗ ${host}: ssh.user ${NO_RULE} cannot run setup's root steps through sudo without a password on ${host}: install the output of 'deploy setup --print-sudoers' as /etc/sudoers.d/handoff-lab (docs/ssh.md)`,
      );
    const nothing = await fleet.lab.inHost('web-1', ['ls', '-A', '/etc/handoff', '/opt/handoff']);
    expect(nothing.stdout.replace(/^\S+:$/gm, '').trim()).toBe('');
  });

  it('with the printed rule, the user can run none of the commands that made it root', async () => {
    await configure(USER);
    const rule = await fleet.deploy(['setup', '--print-sudoers']);
    expect(rule.code, rule.stderr).toBe(0);
    // visudo -cf checks it; a syntax error would throw here
    await ensureLabUser(USER, { nopasswd: `${rule.stdout.trimEnd()}\n` });
    const attempts = [
      ['install', '-m', '0440', '-o', 'root', '/etc/hostname', '/etc/sudoers.d/x'],
      ['install', '-m', '4755', '-o', 'root', '/bin/sh', '/tmp/handoff-rsh'],
      ['mv', '-f', '--', '/etc/hostname', '/etc/cron.d/x'],
      ['chown', `${USER}:`, '--', '/etc'],
      ['mkdir', '-p', '-m', '0755', '--', '/etc/sudoers.d/x'],
    ];
    for (const argv of attempts) {
      const r = await asUser('web-1', ['sudo', '-n', '--', ...argv]);
      expect(r.exitCode, argv.join(' ')).not.toBe(0);
      expect(r.stderr).toMatch(/sudo: a password is required|not allowed to execute/);
    }
    const planted = await fleet.lab.inHost('web-1', [
      'sh',
      '-c',
      'ls /etc/sudoers.d/x /tmp/handoff-rsh /etc/cron.d/x 2>/dev/null; stat -c %U /etc',
    ]);
    expect(planted.stdout.trim()).toBe('root');
  });

  it('refuses to set a host up while root has not installed its cron entry', async () => {
    // the entry on the hosts names the other user: only root may change it
    const r = await fleet.deploy(['setup']);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(
      /✗ web-1: the watchdog's cron entry \/etc\/cron\.d\/handoff-lab on web-1 is missing or not what deploy\.yml says, and only root may write it: as root, install the output of 'deploy setup --print-cron( --node \S+)?' there, mode 0644 \(docs\/ssh\.md\)/,
    );
    const nothing = await fleet.lab.inHost('web-1', ['ls', '-A', '/etc/handoff', '/opt/handoff']);
    expect(nothing.stdout.replace(/^\S+:$/gm, '').trim()).toBe('');
  });

  it('sets the hosts up through the exact rule: the cron entry root’s, the rest the user’s', async () => {
    await rootInstallsCron();
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
      `${USER} 755 /opt/handoff/bin/deploy`,
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
