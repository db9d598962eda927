import { readFileSync } from 'node:fs';
import net from 'node:net';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatReport,
  httpStatus,
  mountNamespaceOf,
  pidsInNamespace,
  startLab,
  startLoad,
  sshArgv,
  until,
  type Lab,
} from '../../scripts/lab/index.js';

const isUp = (s: string): boolean => s === 'UP';
const isDown = (s: string): boolean => s === 'DOWN';

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port, timeout: 1000 });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
    s.once('timeout', () => (s.destroy(), resolve(false)));
  });
}

describe('the lab', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab({ hosts: 3 });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('lets the orchestrator log in to every host over SSH with strict host key checking', async () => {
    for (const host of lab.hosts) {
      const r = await lab.ssh(host, ['hostname']);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe(host.name);
    }
  });

  it('refuses a host whose key does not match the lab known_hosts', async () => {
    const [ssh, ...args] = sshArgv(lab.layout.workDir, lab.host('web-2'), ['true']);
    // web-2 answers under web-1's name: its key is not web-1's, so the client must refuse
    const r = await execa(ssh as string, ['-o', 'HostKeyAlias=127.0.10.1', ...args], {
      reject: false,
      timeout: 30_000,
    });
    expect(r.exitCode).toBe(255);
    expect(r.stderr).toContain('Host key verification failed');
  });

  it('gives every host its own private tmpfs at the same paths', async () => {
    expect(
      (await lab.ssh('web-1', ['findmnt', '-n', '-o', 'FSTYPE', '/run/handoff'])).stdout.trim(),
    ).toBe('tmpfs');
    expect((await lab.ssh('web-1', ['touch', '/run/handoff/lab/only-on-web-1'])).exitCode).toBe(0);
    expect(
      (await lab.ssh('web-1', ['test', '-e', '/run/handoff/lab/only-on-web-1'])).exitCode,
    ).toBe(0);
    expect(
      (await lab.ssh('web-2', ['test', '-e', '/run/handoff/lab/only-on-web-1'])).exitCode,
    ).toBe(1);
    expect((await lab.inHost('web-2', ['test', '-d', '/srv/handoff/lab'])).exitCode).toBe(0);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(' /run/handoff ');
  });

  it('finds node on PATH in an SSH session, for the agent and the services', async () => {
    const r = await lab.ssh('web-3', ['node', '-e', 'console.log(process.version)']);
    expect(r.stdout.trim()).toBe(process.version);
  });

  it('spreads load through HAProxy over all three hosts once their services run', async () => {
    for (const host of lab.hosts) {
      await lab.startServicesDirectly(host, await lab.stageRelease(host, 'r1'));
    }
    for (const host of lab.hosts) await lab.waitForStatus(host.name, isUp, 15_000);
    const load = startLoad({ url: lab.url, concurrency: 4, maxDurationMs: 30_000 });
    await new Promise((r) => setTimeout(r, 2000));
    const report = await load.stop();
    expect(report.failed, formatReport(report)).toBe(0);
    expect(report.ok).toBeGreaterThan(30);
    expect(Object.keys(report.hosts).sort()).toEqual(['web-1', 'web-2', 'web-3']);
    expect(Object.keys(report.releases)).toEqual(['r1']);
  });

  it('takes a drained host out of rotation within inter × fall without failing one request', async () => {
    const { interval, fall, checkTimeout } = lab.layout.timings;
    // the app's marker cache, one interval of phase, the failing checks, one check's timeout
    const bound = 250 + interval * (fall + 1) + checkTimeout;
    const load = startLoad({ url: lab.url, concurrency: 4, maxDurationMs: 60_000 });
    await new Promise((r) => setTimeout(r, 500));
    expect((await lab.ssh('web-1', ['touch', '/run/handoff/lab/draining'])).exitCode).toBe(0);
    const took = await lab.waitForStatus('web-1', isDown, bound);
    expect(took).toBeLessThanOrEqual(bound);
    expect(
      await httpStatus(`http://${lab.host('web-1').address}:${lab.layout.appPort}/health`),
    ).toBe(503);
    const servedBefore = load.snapshot().hosts['web-1'] ?? 0;
    await new Promise((r) => setTimeout(r, 1000));
    const report = await load.stop();
    expect(report.failed, formatReport(report)).toBe(0);
    expect(report.hosts['web-1']).toBe(servedBefore);

    expect((await lab.ssh('web-1', ['rm', '/run/handoff/lab/draining'])).exitCode).toBe(0);
    await lab.waitForStatus('web-1', isUp, 15_000);
  });

  it('stops a drained host gracefully under load: the long request finishes, nothing fails', async () => {
    const web3 = lab.host('web-3');
    const releaseDir = '/srv/handoff/lab/releases/r1';
    const load = startLoad({ url: lab.url, concurrency: 4, maxDurationMs: 60_000 });
    expect((await lab.inHost(web3, ['touch', '/run/handoff/lab/draining'])).exitCode).toBe(0);
    await lab.waitForStatus('web-3', isDown, 10_000);
    const long = httpStatus(`http://${web3.address}:${lab.layout.appPort}/?sleep=1500`, 10_000);
    await new Promise((r) => setTimeout(r, 200));
    await lab.stopServicesDirectly(web3, releaseDir);
    expect(await long).toBe(200);
    const report = await load.stop();
    expect(report.failed, formatReport(report)).toBe(0);

    await lab.startServicesDirectly(web3, releaseDir);
    expect((await lab.inHost(web3, ['rm', '/run/handoff/lab/draining'])).exitCode).toBe(0);
    await lab.waitForStatus('web-3', isUp, 15_000);
  });

  it('counts the failures of a naive kill under load, so the measurement can see them', async () => {
    const load = startLoad({ url: lab.url, concurrency: 4, maxDurationMs: 60_000 });
    await new Promise((r) => setTimeout(r, 500));
    const pid = (await lab.inHost('web-2', ['cat', '/run/handoff/lab/app.pid'])).stdout.trim();
    expect((await lab.inHost('web-2', ['kill', '-KILL', pid])).exitCode).toBe(0);
    await lab.waitForStatus('web-2', isDown, 10_000);
    const report = await load.stop();
    expect(report.failed, formatReport(report)).toBeGreaterThan(0);
    expect(report.ok).toBeGreaterThan(0);
  });

  it('keeps a bad release out of rotation: its /health answers 503 failing', async () => {
    const dir = await lab.stageRelease('web-2', 'r-bad', { bad: true });
    await lab.stopServicesDirectly('web-2', dir);
    await lab.startServicesDirectly('web-2', dir);
    const health = `http://${lab.host('web-2').address}:${lab.layout.appPort}/health`;
    expect(await httpStatus(health)).toBe(503);
    const { interval, rise } = lab.layout.timings;
    await new Promise((r) => setTimeout(r, interval * (rise + 1)));
    expect(await lab.serverStatus('web-2')).toBe('DOWN');
  });

  it('leaves no process, no namespace and no listener behind when it stops', async () => {
    const namespaces = lab.hosts.map((h) => h.mountNamespace);
    const sshd = lab.hosts.map((h) => h.pid);
    expect(namespaces.every((ns) => ns !== mountNamespaceOf('self'))).toBe(true);
    await lab.stop();
    for (const ns of namespaces) expect(pidsInNamespace(ns)).toEqual([]);
    for (const pid of sshd) expect(mountNamespaceOf(pid)).toBeUndefined();
    expect(await portOpen(lab.layout.frontend.address, lab.layout.frontend.port)).toBe(false);
    for (const h of lab.hosts) expect(await portOpen(h.address, h.sshPort)).toBe(false);
    expect(await portOpen(lab.host('web-3').address, lab.layout.appPort)).toBe(false);
  });
});

describe('a lab host whose sshd dies', () => {
  it("keeps its namespace's id, so its teardown cannot kill a namespace made after it", async () => {
    const lab = await startLab({ hosts: 1, subnet: '127.0.96', workDir: '/tmp/handoff-e2e-96' });
    const host = lab.hosts[0]!;
    let bystander: ReturnType<typeof execa> | undefined;
    try {
      // nothing else lives in the host's namespace: with sshd gone it would be freed
      process.kill(host.pid, 'SIGKILL');
      await until(() => mountNamespaceOf(host.pid) === undefined, 5000);
      // the kernel hands a freed id to the next namespace made, lowest first
      bystander = execa('unshare', ['--mount', '--propagation', 'private', 'sleep', '120']);
      const pid = bystander.pid!;
      await until(() => {
        const ns = mountNamespaceOf(pid);
        return ns !== undefined && ns !== mountNamespaceOf('self');
      }, 5000);
      expect(mountNamespaceOf(pid)).not.toBe(host.mountNamespace);
      await lab.stop();
      expect(
        mountNamespaceOf(pid),
        'the lab killed a process of a namespace not its own',
      ).toBeDefined();
    } finally {
      bystander?.kill('SIGKILL');
      await bystander?.catch(() => undefined);
      await lab.stop();
    }
  }, 60_000);
});
