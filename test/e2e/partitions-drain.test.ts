import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LabFaults } from '../../scripts/lab/faults.js';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import { liveReleases, rolloutUnderLoad, startFleet, type Fleet } from './fleet-harness.js';
import { sampleRotation } from './rotation-sampler.js';
import { hostOnDisk, until, watchRollout } from './watch-rollout.js';
import { startWatchdogs } from './watchdogs.js';

/**
 * The orchestrator cut from a host while that host is drained: a real
 * partition (iptables DROP on web-1's SSH port, scripts/lab/faults.ts), the
 * orchestrator alive and waiting, web-1 still answering HAProxy. Subnet
 * 127.0.136.0/24 only.
 */
const SUBNET = '127.0.136';

let fleet: Fleet;
let faults: LabFaults;
beforeAll(async () => {
  faults = await LabFaults.open(SUBNET);
  fleet = await startFleet({ hosts: 3, subnet: SUBNET, workDir: '/tmp/handoff-e2e-136' });
  await fleet.stageEverywhere('r2');
  await fleet.stageEverywhere('r3');
}, 240_000);
afterAll(async () => {
  await faults?.close();
  await fleet?.stop();
});

const web1 = () => hostOnDisk(fleet, 'web-1');

describe('the orchestrator cut from web-1 mid-drain (its SSH packets dropped)', () => {
  it('the agent ends the silent session, the watchdog puts web-1 back, the rollout stops naming it; one host out at most, 0 failed requests', async () => {
    const host = fleet.lab.host('web-1');
    const watchdogs = startWatchdogs(fleet.lab.hosts);
    const load = startLoad({ url: fleet.lab.url, concurrency: 6 });
    const rotation = sampleRotation(fleet.lab);
    const run = watchRollout(fleet, 'r2');
    let cutAt = 0;
    let wholeMs = 0;
    try {
      await run.stepStarted('web-1', 'overlap');
      await faults.apply({ kind: 'drop', address: host.address, ports: [host.sshPort] });
      cutAt = Date.now();
      // no heartbeat reaches the agent: after 15 s it releases the lock, the marker stays
      const unlocked = await until(web1, (s) => !s.locked, 40_000);
      expect(unlocked).toMatchObject({ locked: false, drained: true, release: 'r1' });
      expect(Date.now() - cutAt).toBeGreaterThanOrEqual(14_000);
      // the marker's lease (twice the host window) ends and the watchdog undrains it
      const healed = await until(web1, (s) => !s.drained, 150_000);
      expect(healed).toEqual({ locked: false, drained: false, release: 'r1' });
      wholeMs = Date.now() - cutAt;
      const r = await run.proc;
      expect(r.exitCode, String(r.stderr)).not.toBe(0);
      const result = run.events.find((e) => e.event === 'result');
      expect(result?.ok).toBe(false);
      // web-1 is named; web-2 and web-3 were never touched
      expect(String(r.stderr)).toContain('web-1');
      expect(result?.hosts?.map((h) => h.host) ?? []).not.toContain('web-2');
    } finally {
      await faults.heal();
      run.proc.kill('SIGKILL');
      await run.proc;
      const report = await load.stop();
      await watchdogs.stop();
      const seen = await rotation.stop();
      expect(report.failed, formatReport(report)).toBe(0);
      expect(seen.maxOut, JSON.stringify(seen.worst)).toBeLessThanOrEqual(1);
    }
    // the fleet is whole again once the watchdog acted: bounded by the marker's lease
    expect(wholeMs).toBeLessThan(150_000);
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r1', 'r1', 'r1']);
  }, 300_000);

  it('healed: the next rollout deploys r2 everywhere, 0 failed requests', async () => {
    const rotation = sampleRotation(fleet.lab);
    const run = await rolloutUnderLoad(fleet, 'r2');
    const seen = await rotation.stop();
    expect(run.code, run.log).toBe(0);
    expect(run.report.failed, formatReport(run.report)).toBe(0);
    expect(seen.maxOut, JSON.stringify(seen.worst)).toBeLessThanOrEqual(1);
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r2', 'r2', 'r2']);
  }, 150_000);
});

describe('a host cut from the orchestrator after preflight, before its turn', () => {
  it('the rollout deploys the hosts before it and stops there, the cut host untouched; one host out at most, 0 failed requests', async () => {
    const web3 = fleet.lab.host('web-3');
    const load = startLoad({ url: fleet.lab.url, concurrency: 6 });
    const rotation = sampleRotation(fleet.lab);
    const run = watchRollout(fleet, 'r3');
    try {
      // the fleet lease is held on all three and preflight passed: web-1 is being drained
      await run.stepStarted('web-1', 'overlap');
      await faults.apply({ kind: 'drop', address: web3.address, ports: [web3.sshPort] });
      const r = await run.proc;
      const log = `${String(r.stderr)}\n${String(r.stdout)}`;
      expect(r.exitCode, log).not.toBe(0);
      expect(run.events.find((e) => e.event === 'result')?.ok, log).toBe(false);
      expect(String(r.stderr)).toContain('web-3');
      expect(await hostOnDisk(fleet, 'web-3')).toEqual({
        locked: false,
        drained: false,
        release: 'r2',
      });
    } finally {
      await faults.heal();
      run.proc.kill('SIGKILL');
      await run.proc;
    }
    const report = await load.stop();
    const seen = await rotation.stop();
    expect(report.failed, formatReport(report)).toBe(0);
    expect(seen.maxOut, JSON.stringify(seen.worst)).toBeLessThanOrEqual(1);
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r3', 'r3', 'r2']);
  }, 200_000);
});
