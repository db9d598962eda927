import { describe, expect, it } from 'vitest';
import { setupHost, type SetupInput } from '../../../src/fleet/setup.js';
import { silentLog } from '../../../src/log.js';
import type { ExecResult, Transport } from '../../../src/remote/transport.js';
import { testConfig } from '../../support/config.js';
import { setupAgent, setupBundle } from '../../support/setup-agent.js';

/**
 * A host where ssh.user may write only its temp directory: every command is
 * recorded; `sudo -n …` answers as sudo would with or without a NOPASSWD rule,
 * and install/mv move the uploaded bytes.
 */
class SudoHost implements Transport {
  readonly host = 'web-1';
  readonly files = new Map<string, string | Uint8Array>();
  readonly commands: string[][] = [];
  constructor(private readonly nopasswd: boolean) {}

  exec(argv: readonly string[]): Promise<ExecResult> {
    this.commands.push([...argv]);
    const ok = (stdout = ''): Promise<ExecResult> =>
      Promise.resolve({ code: 0, stdout, stderr: '' });
    if (argv[0] === 'mktemp') return ok('/tmp/handoff-setup.abc\n');
    if (argv[0] !== 'sudo') return ok();
    if (!this.nopasswd)
      return Promise.resolve({ code: 1, stdout: '', stderr: 'sudo: a password is required\n' });
    const [cmd, ...rest] = argv.slice(3);
    const [from, to] = rest.slice(rest.indexOf('--') + 1);
    if ((cmd === 'install' || cmd === 'mv') && from && to) {
      this.files.set(to, this.files.get(from)!);
      if (cmd === 'mv') this.files.delete(from);
    }
    return ok();
  }
  spawn(): never {
    throw new Error('setup spawns nothing');
  }
  upload(): Promise<void> {
    throw new Error('setup uploads no artifact');
  }
  put(path: string, content: string | Uint8Array): Promise<void> {
    this.commands.push(['put', path]);
    this.files.set(path, content);
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const bundle = setupBundle;
const agent = setupAgent;

const config = testConfig({ ssh: { ...testConfig().ssh, user: 'deploy', sudo: true } });
const input: SetupInput = {
  config,
  hostConfigPath: '/etc/handoff/api.json',
  agentBundle: bundle,
  agentLibs: [],
  log: silentLog,
};

describe('deploy setup with ssh.sudo', () => {
  it('makes the directories as root, hands the agent its own, installs each file through sudo', async () => {
    const host = new SudoHost(true);
    const r = await setupHost(config.hosts[0]!, host, agent, input);
    expect(r).toMatchObject({ ok: true });
    expect(host.commands[0]?.slice(0, 5)).toEqual(['sudo', '-n', '--', 'mkdir', '-p']);
    expect(host.commands).toContainEqual([
      'sudo',
      '-n',
      '--',
      'chown',
      'deploy:',
      '--',
      '/srv/handoff/api',
      '/srv/handoff/api/releases',
      '/run/handoff/api',
      '/var/lock/handoff',
    ]);
    expect(host.files.get('/etc/cron.d/handoff-api')).toContain(' deploy ');
    expect(host.files.has('/etc/handoff/api.json')).toBe(true);
    expect(host.files.get('/opt/handoff/bin/deploy')).toEqual(bundle);
    // nothing written where only root may write except through sudo
    const direct = host.commands.filter((c) => c[0] === 'put').map((c) => c[1]);
    expect(direct.every((p) => p?.startsWith('/tmp/handoff-setup.abc/'))).toBe(true);
    expect(host.commands.at(-1)).toEqual(['rm', '-rf', '--', '/tmp/handoff-setup.abc']);
  });

  it('without a NOPASSWD rule fails the host with one line saying what to add', async () => {
    const host = new SudoHost(false);
    const r = await setupHost(config.hosts[0]!, host, agent, input);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(
      /^ssh\.user deploy cannot run sudo without a password on web-1: add a NOPASSWD rule for mkdir, chown, install, mv/,
    );
    expect(host.commands).toHaveLength(1);
  });
});
