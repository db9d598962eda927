import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, until, type LabHaproxy } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';
import { expectPairServedAndCounted, loadOnEach as loadOnPair } from './pair-load.js';

// an HAProxy pair with different check timings (lb-a inter 1s fall 2, lb-b inter 1.5s fall 3)
let fleet: Fleet;
let pair: readonly LabHaproxy[];
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 3,
    subnet: '127.0.90',
    workDir: '/tmp/handoff-e2e-90',
    pair: true,
  });
  pair = fleet.lab.haproxies;
});
afterAll(async () => {
  await fleet?.stop();
});

const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));

const loadOnEach = () => loadOnPair(fleet);

describe('a rollout through an HAProxy pair', () => {
  it('deploy check --live shows the slower one and warns that their checks differ', async () => {
    const r = await fleet.deploy(['check', '--live']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('timeline of the slowest, lb-b:');
    expect(r.stdout).toMatch(/await-out bound \S+ set by lb-b; await-in bound \S+ set by lb-b/);
    expect(r.stdout).toContain('invariants on lb-a:');
    expect(r.stdout).toContain('invariants on lb-b:');
    expect(r.stderr).toContain('lb-a and lb-b (backend be_lab) check differently');
  });

  it('reaches the new release with zero failed requests on each frontend', async () => {
    await fleet.stageEverywhere('r2');
    const stop = loadOnEach();
    const r = await fleet.deploy(['rollout', '--release', 'r2']);
    const reports = await stop();
    expect(r.code, r.stderr).toBe(0);
    expect(await releases()).toEqual(['r2', 'r2', 'r2']);
    expectPairServedAndCounted(r.stdout, reports);
  });

  it('verify and status name each balancer’s view', async () => {
    const verify = await fleet.deploy(['verify']);
    expect(verify.code, verify.stdout).toBe(0);
    expect(verify.stdout).toContain('target web-1: healthy, in rotation (lb-a: healthy');
    const status = await fleet.deploy(['status', '--json']);
    const result = status.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .at(-1) as {
      hosts: { target: { balancers: { name: string; in_rotation: boolean }[] } }[];
    };
    expect(result.hosts[0]?.target.balancers.map((b) => [b.name, b.in_rotation])).toEqual([
      ['lb-a', true],
      ['lb-b', true],
    ]);
  });

  it('with drain.method deregister, loses nothing when lb-b reloads mid-rollout', async () => {
    await fleet.configure({ drainMethod: 'deregister' });
    await fleet.stageEverywhere('r3');
    const stop = loadOnEach();
    const rollout = fleet.spawnDeploy(['rollout', '--release', 'r3']);
    const lbB = pair[1]!;
    // web-2 drained on lb-b (handoff's `set server … state drain`): reload it now
    const drained = await until(
      async () => adminDrained(await lbB.haproxy('show servers state')),
      60_000,
    );
    expect(drained).toBe(true);
    const newPid = await lbB.reload();
    const r = await rollout;
    const reports = await stop();
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toContain(`reloaded (pid`);
    expect(String(r.stderr)).toContain(`→ ${newPid}`);
    for (const { name, report } of reports)
      expect(report.failed, `${name}: ${formatReport(report)}`).toBe(0);
    expect(await releases()).toEqual(['r3', 'r3', 'r3']);
    // nothing left drained on the reloaded one
    for (const h of fleet.lab.hosts) expect(await lbB.serverStatus(h.name)).toBe('UP');
    // the reload is in the audit of the host whose drain it undid, named by lb-b
    const audit = await fleet.deploy(['audit', '--json']);
    expect(audit.code, audit.stderr).toBe(0);
    const last = JSON.parse(audit.stdout.trim().split('\n').at(-1)!) as {
      entries: { host: string; release: string; step: string; detail?: string }[];
    };
    const reloads = last.entries.filter((e) => e.step === 'balancer-reload');
    expect(reloads.length, JSON.stringify(last.entries.slice(-20))).toBeGreaterThan(0);
    expect(reloads.some((e) => e.host === 'web-2' && e.release === 'r3')).toBe(true);
    expect(reloads[0]?.detail).toMatch(
      new RegExp(`^lb-b: haproxy \\S+ reloaded \\(pid \\d+ → ${newPid}`),
    );
  });
});

/** web-2's srv_admin_state (7th column of `show servers state`) has the forced-drain bit (0x08) */
function adminDrained(serversState: string): boolean {
  const row = serversState.split('\n').find((l) => l.split(' ')[3] === 'web-2');
  return (Number(row?.split(' ')[6]) & 0x08) !== 0;
}
