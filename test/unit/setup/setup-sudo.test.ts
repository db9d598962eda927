import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cronEntry } from '../../../src/setup/setup-files.js';
import { setupHost, type SetupInput } from '../../../src/setup/setup.js';
import { silentLog } from '../../../src/log.js';
import type { ExecResult, Transport } from '../../../src/remote/transport.js';
import { testConfig } from '../../support/config.js';
import { setupAgent, setupBundle } from '../../support/setup-agent.js';

/**
 * A host where ssh.user writes only the directories root hands it: every
 * command is recorded; `sudo -n …` answers as sudo would with or without the
 * rule, `mv` moves the staged bytes, and sha256sum/stat answer from the files.
 */
class SudoHost implements Transport {
  readonly host = 'web-1';
  readonly files = new Map<string, { content: string | Uint8Array; mode: number }>();
  readonly commands: string[][] = [];
  constructor(
    private readonly nopasswd: boolean,
    readonly node = '/usr/bin/node',
  ) {}

  exec(argv: readonly string[]): Promise<ExecResult> {
    this.commands.push([...argv]);
    const ok = (stdout = ''): Promise<ExecResult> =>
      Promise.resolve({ code: 0, stdout, stderr: '' });
    if (argv.join(' ') === 'node -p process.execPath') return ok(`${this.node}\n`);
    const paths = argv.slice(argv.indexOf('--') + 1).filter((p) => this.files.has(p));
    if (argv[0] === 'sha256sum')
      return ok(
        paths
          .map(
            (p) =>
              `${createHash('sha256').update(this.files.get(p)!.content).digest('hex')}  ${p}\n`,
          )
          .join(''),
      );
    if (argv[0] === 'stat')
      return ok(paths.map((p) => `${this.files.get(p)!.mode.toString(8)} ${p}\n`).join(''));
    if (argv[0] !== 'sudo') return ok();
    if (!this.nopasswd)
      return Promise.resolve({ code: 1, stdout: '', stderr: 'sudo: a password is required\n' });
    const [cmd, ...rest] = argv.slice(3);
    const [from, to] = rest.slice(rest.indexOf('--') + 1);
    if (cmd === 'mv' && from && to) {
      this.files.set(to, this.files.get(from)!);
      this.files.delete(from);
    }
    return ok();
  }
  spawn(): never {
    throw new Error('setup spawns nothing');
  }
  upload(): Promise<void> {
    throw new Error('setup uploads no artifact');
  }
  put(path: string, content: string | Uint8Array, mode = 0o644): Promise<void> {
    this.commands.push(['put', path]);
    this.files.set(path, { content, mode });
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const config = testConfig({ ssh: { ...testConfig().ssh, user: 'deploy', sudo: true } });
const input: SetupInput = {
  config,
  hostConfigPath: '/etc/handoff/api.json',
  agentBundle: setupBundle,
  agentLibs: [],
  log: silentLog,
};
const cron = '/etc/cron.d/handoff-api';
/** the cron entry as root installs it from `deploy setup --print-cron` */
const withRootsCron = (host: SudoHost): SudoHost => {
  host.files.set(cron, { content: cronEntry(config, input.hostConfigPath), mode: 0o644 });
  return host;
};

describe('deploy setup with ssh.sudo', () => {
  it('runs only the exact root steps through sudo and writes the rest as ssh.user', async () => {
    const host = withRootsCron(new SudoHost(true));
    const r = await setupHost(config.hosts[0]!, host, setupAgent, input);
    expect(r).toMatchObject({ ok: true, changed: ['agent', 'host config'] });
    expect(host.commands.filter((c) => c[0] === 'sudo').map((c) => c.slice(3).join(' '))).toEqual([
      'mkdir -p -m 0755 -- /srv/handoff/api /run/handoff/api /var/lock/handoff /opt/handoff/bin /etc/handoff',
      'chown -h deploy: -- /srv/handoff/api /run/handoff/api /var/lock/handoff /opt/handoff/bin',
      'mv -f -T -- /srv/handoff/api/.host-config.json /etc/handoff/api.json',
    ]);
    expect(host.commands).toContainEqual(['mkdir', '-p', '--', '/srv/handoff/api/releases']);
    expect(host.files.get('/etc/handoff/api.json')?.mode).toBe(0o600);
    expect(host.files.get('/opt/handoff/bin/deploy')?.content).toEqual(setupBundle);
    // ssh.user writes only into the directories handed to it
    const direct = host.commands.filter((c) => c[0] === 'put').map((c) => c[1]);
    expect(direct).toEqual(['/opt/handoff/bin/deploy', '/srv/handoff/api/.host-config.json']);
    // the new agent's compile cache starts empty, emptied by ssh.user, who owns it
    const rm = host.commands.findIndex(
      (c) => c.join(' ') === 'rm -rf -- /opt/handoff/bin/compile-cache',
    );
    expect(rm).toBeGreaterThan(host.commands.findIndex((c) => c[0] === 'put'));
  });

  it("refuses, changing nothing, when root's cron entry is missing or stale", async () => {
    const stale = new SudoHost(true);
    stale.files.set(cron, { content: '* * * * * root sh /tmp/x\n', mode: 0o644 });
    for (const host of [new SudoHost(true), stale]) {
      const r = await setupHost(config.hosts[0]!, host, setupAgent, input);
      expect(r.ok).toBe(false);
      expect(r.error).toBe(
        "the watchdog's cron entry /etc/cron.d/handoff-api on web-1 is missing or not what deploy.yml says, and only root may write it: as root, install the output of 'deploy setup --print-cron' there, mode 0644 (docs/ssh.md)",
      );
      expect(host.commands.some((c) => c[0] === 'sudo' || c[0] === 'put')).toBe(false);
    }
  });

  it("names the host's node in what root must print when it is not on cron's PATH", async () => {
    const host = withRootsCron(new SudoHost(true, '/opt/node24/bin/node'));
    const r = await setupHost(config.hosts[0]!, host, setupAgent, input);
    expect(r.error).toContain(
      "install the output of 'deploy setup --print-cron --node /opt/node24/bin/node' there",
    );
    host.files.set(cron, {
      content: cronEntry(config, input.hostConfigPath, '/opt/node24/bin/node'),
      mode: 0o644,
    });
    expect(await setupHost(config.hosts[0]!, host, setupAgent, input)).toMatchObject({ ok: true });
  });

  it('without a rule fails the host with one line saying what to install', async () => {
    const host = withRootsCron(new SudoHost(false));
    const r = await setupHost(config.hosts[0]!, host, setupAgent, input);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(
      /^ssh\.user deploy cannot run setup's root steps through sudo without a password on web-1: install the output of 'deploy setup --print-sudoers' as \/etc\/sudoers\.d\/handoff-api/,
    );
    expect(host.commands.filter((c) => c[0] === 'sudo' || c[0] === 'put')).toHaveLength(1);
  });
});
