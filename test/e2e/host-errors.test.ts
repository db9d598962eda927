import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type DeployRun, type Fleet } from './fleet-harness.js';

let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({ hosts: 3, subnet: '127.0.43', workDir: '/tmp/handoff-e2e-43' });
  // web-2 and web-3 go down for the whole file: their sshd stops
  for (const name of ['web-2', 'web-3']) process.kill(fleet.lab.host(name).pid, 'SIGTERM');
}, 300_000);
afterAll(async () => {
  await fleet?.stop();
});

const stderrLines = (r: DeployRun) => r.stderr.trim().split('\n');

describe('two unreachable hosts', () => {
  it('deploy verify names each once, on its own line, and says the reason once', async () => {
    const r = await fleet.deploy(['verify']);
    expect(r.code, r.stderr).toBe(3);
    const lines = stderrLines(r);
    expect(lines, r.stderr).toHaveLength(2);
    expect(lines[0]).toMatch(/^deploy: cannot verify web-2: \S/);
    expect(lines[1]).toMatch(/^cannot verify web-3: \S/);
    const all = `${r.stdout}\n${r.stderr}`;
    expect(all).not.toMatch(/web-(\d): web-\1/);
    // the reason is printed once: the table says only "unreachable"
    const reason = lines[0]?.replace(/^deploy: cannot verify web-2: /, '') ?? '';
    expect(all.split(reason).length - 1).toBe(1);
    expect(r.stdout).toMatch(/web-2\s.*unreachable/);
  }, 60_000);

  it('a rollout refuses in preflight with one line per host, each host named once', async () => {
    const r = await fleet.deploy(['rollout', '--release', 'r1']);
    expect(r.code, r.stderr).toBe(3);
    const lines = stderrLines(r).filter((l) => /preflight/.test(l));
    expect(lines, r.stderr).toHaveLength(2);
    expect(lines[0]).toMatch(/^deploy: preflight: web-2: \S/);
    expect(lines[1]).toMatch(/^preflight: web-3: \S/);
    expect(r.stderr).not.toMatch(/web-(\d): web-\1/);
  }, 60_000);

  it('deploy status names each once', async () => {
    const r = await fleet.deploy(['status']);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^web-2: unreachable: \S/m);
    expect(`${r.stdout}\n${r.stderr}`).not.toMatch(/web-(\d): web-\1/);
  }, 60_000);
});
