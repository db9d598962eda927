import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { unsealHostConfig } from '../../../src/config/sealed.js';
import { setupHost, type SetupInput } from '../../../src/setup/setup.js';
import { MemoryLog, silentLog } from '../../../src/log.js';
import type { ExecResult, Transport } from '../../../src/remote/transport.js';
import { testConfig } from '../../support/config.js';
import { agentAnswering, setupAgent, setupBundle } from '../../support/setup-agent.js';

const sha = (content: string | Uint8Array): string =>
  createHash('sha256').update(content).digest('hex');

/**
 * A host's files as a map; `sha256sum` and `stat` answer from it, as the real
 * commands would, and every other command succeeds.
 */
class FakeHostFiles implements Transport {
  readonly host = 'web-1';
  readonly files = new Map<string, { content: string | Uint8Array; mode: number }>();
  readonly puts: string[] = [];
  /** every put and every command but the two reads, in order */
  readonly steps: string[] = [];
  /** what `rm` answers, as a directory ssh.user may not empty would */
  rmFails = false;

  exec(argv: readonly string[]): Promise<ExecResult> {
    if (argv[0] !== 'sha256sum' && argv[0] !== 'stat') this.steps.push(argv.join(' '));
    if (argv[0] === 'rm' && this.rmFails)
      return Promise.resolve({
        code: 1,
        stdout: '',
        stderr: "rm: cannot remove '/opt/handoff/bin/compile-cache/v24-0/1': Permission denied\n",
      });
    const paths = argv.slice(argv.indexOf('--') + 1).filter((p) => this.files.has(p));
    const line = (p: string): string => {
      const f = this.files.get(p)!;
      return argv[0] === 'sha256sum' ? `${sha(f.content)}  ${p}` : `${f.mode.toString(8)} ${p}`;
    };
    const answers = argv[0] === 'sha256sum' || argv[0] === 'stat';
    return Promise.resolve({
      code: 0,
      stdout: answers ? paths.map(line).join('\n') : '',
      stderr: '',
    });
  }
  spawn(): never {
    throw new Error('setup spawns nothing');
  }
  put(path: string, content: string | Uint8Array, mode = 0o644): Promise<void> {
    this.files.set(path, { content, mode });
    this.puts.push(path);
    this.steps.push(`put ${path}`);
    return Promise.resolve();
  }
  upload(): Promise<void> {
    throw new Error('setup uploads no artifact');
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const bundle = setupBundle;
const agent = setupAgent;

function input(every: number): SetupInput {
  return {
    config: testConfig({ watchdog: { ...testConfig().watchdog, every } }),
    hostConfigPath: '/etc/handoff/api.json',
    agentBundle: bundle,
    agentLibs: [],
    log: silentLog,
  };
}

describe('deploy setup on a host', () => {
  it('writes the host config and the cron line from one config', async () => {
    const host = new FakeHostFiles();
    const r = await setupHost(testConfig().hosts[0]!, host, agent, input(15_000));
    expect(r).toMatchObject({ ok: true });
    const json = host.files.get('/etc/handoff/api.json')!.content as string;
    const cron = host.files.get('/etc/cron.d/handoff-api')!.content as string;
    expect(unsealHostConfig(json, 'x')?.watchdog.every).toBe(15_000);
    expect(cron).toContain("'--ticks' '4'");
  });

  it('writes the host config readable by its user only, and corrects a changed mode', async () => {
    const host = new FakeHostFiles();
    await setupHost(testConfig().hosts[0]!, host, agent, input(60_000));
    expect(host.files.get('/etc/handoff/api.json')?.mode).toBe(0o600);
    host.files.get('/etc/handoff/api.json')!.mode = 0o644;
    host.puts.length = 0;
    const again = await setupHost(testConfig().hosts[0]!, host, agent, input(60_000));
    expect(again.changed).toEqual(['host config']);
    expect(host.files.get('/etc/handoff/api.json')?.mode).toBe(0o600);
  });

  it('changes nothing on a second run', async () => {
    const host = new FakeHostFiles();
    await setupHost(testConfig().hosts[0]!, host, agent, input(60_000));
    host.puts.length = 0;
    expect(await setupHost(testConfig().hosts[0]!, host, agent, input(60_000))).toMatchObject({
      ok: true,
      changed: [],
    });
    expect(host.puts).toEqual([]);
  });

  it("empties the agent's compile cache after installing a new agent, and only then", async () => {
    const host = new FakeHostFiles();
    await setupHost(testConfig().hosts[0]!, host, agent, input(60_000));
    const rm = 'rm -rf -- /opt/handoff/bin/compile-cache';
    expect(host.steps.filter((s) => s === rm)).toHaveLength(1);
    expect(host.steps.indexOf(rm)).toBeGreaterThan(
      host.steps.indexOf('put /opt/handoff/bin/deploy'),
    );

    // the same agent: its cache stays; a new one (another bundle): emptied again
    host.steps.length = 0;
    await setupHost(testConfig().hosts[0]!, host, agent, input(30_000));
    expect(host.steps).not.toContain(rm);
    const other = Buffer.from('another agent');
    const r = await setupHost(testConfig().hosts[0]!, host, agentAnswering(sha(other)), {
      ...input(30_000),
      agentBundle: other,
    });
    expect(r).toMatchObject({ ok: true, changed: ['agent'] });
    expect(host.steps).toContain(rm);
  });

  it('installs the agent when its old compile cache cannot be emptied, and says so', async () => {
    const host = new FakeHostFiles();
    host.rmFails = true;
    const log = new MemoryLog();
    const r = await setupHost(testConfig().hosts[0]!, host, agent, { ...input(60_000), log });
    expect(r).toMatchObject({ ok: true });
    expect(log.events).toContainEqual({
      level: 'warn',
      event: 'setup',
      host: 'web-1',
      message:
        "the agent's old compile cache /opt/handoff/bin/compile-cache could not be removed (rm: cannot remove '/opt/handoff/bin/compile-cache/v24-0/1': Permission denied): it only takes disk space; remove it as root",
    });
  });
});
