import { describe, expect, it } from 'vitest';
import { liveReleases } from './fleet-harness.js';
import {
  expectNothingLost,
  rolloutThroughFault,
  usePartitionLab,
  watchThroughFault,
} from './partition-lab.js';
import { hostOnDisk, until } from './watch-rollout.js';
import { startWatchdogs } from './watchdogs.js';

/**
 * The orchestrator cut from a host while that host is drained: a real
 * partition (iptables DROP on web-1's SSH port, scripts/lab/faults.ts), the
 * orchestrator alive and waiting, web-1 still answering HAProxy. Subnet
 * 127.0.136.0/24 only.
 */
const lab = usePartitionLab('127.0.136', { releases: ['r2', 'r3'] });
const releases = () => liveReleases((a) => lab.fleet.deploy(a));
const web1 = () => hostOnDisk(lab.fleet, 'web-1');

describe('the orchestrator cut from web-1 mid-drain (its SSH packets dropped)', () => {
  it('the agent ends the silent session, the watchdog puts web-1 back, the rollout stops naming it; one host out at most, 0 failed requests', async () => {
    const host = lab.fleet.lab.host('web-1');
    const watchdogs = startWatchdogs(lab.fleet.lab.hosts);
    let wholeMs = 0;
    try {
      await watchThroughFault(lab, 'r2', async (run) => {
        await run.stepStarted('web-1', 'overlap');
        await lab.faults.apply({ kind: 'drop', address: host.address, ports: [host.sshPort] });
        const cutAt = Date.now();
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
      });
    } finally {
      await watchdogs.stop();
    }
    // the fleet is whole again once the watchdog acted: bounded by the marker's lease
    expect(wholeMs).toBeLessThan(150_000);
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);
  }, 300_000);

  it('healed: the next rollout deploys r2 everywhere, 0 failed requests', async () => {
    const run = await rolloutThroughFault(lab, 'r2', async () => {});
    expect(run.code, run.log).toBe(0);
    expectNothingLost(run);
    expect(await releases()).toEqual(['r2', 'r2', 'r2']);
  }, 150_000);
});

describe('a host cut from the orchestrator after preflight, before its turn', () => {
  it('the rollout deploys the hosts before it and stops there, the cut host untouched; one host out at most, 0 failed requests', async () => {
    const web3 = lab.fleet.lab.host('web-3');
    await watchThroughFault(lab, 'r3', async (run) => {
      // the fleet lease is held on all three and preflight passed: web-1 is being drained
      await run.stepStarted('web-1', 'overlap');
      await lab.faults.apply({ kind: 'drop', address: web3.address, ports: [web3.sshPort] });
      const r = await run.proc;
      const log = `${String(r.stderr)}\n${String(r.stdout)}`;
      expect(r.exitCode, log).not.toBe(0);
      expect(run.events.find((e) => e.event === 'result')?.ok, log).toBe(false);
      expect(String(r.stderr)).toContain('web-3');
      expect(await hostOnDisk(lab.fleet, 'web-3')).toEqual({
        locked: false,
        drained: false,
        release: 'r2',
      });
    });
    expect(await releases()).toEqual(['r3', 'r3', 'r2']);
  }, 200_000);
});
