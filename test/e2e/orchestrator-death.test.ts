import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import { startFleet, type Fleet } from './fleet-harness.js';
import { hostOnDisk, until, watchRollout } from './watch-rollout.js';
import { startWatchdogs } from './watchdogs.js';

let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({ hosts: 3, subnet: '127.0.52', workDir: '/tmp/handoff-e2e-52' });
});
afterAll(async () => {
  await fleet?.stop();
});

const web1 = () => hostOnDisk(fleet, 'web-1');

describe('an orchestrator frozen mid-handshake (SIGSTOP, its SSH sessions open)', () => {
  it('loses the lock after the heartbeat bound, and the watchdog puts the host back in rotation, 0 failed requests', async () => {
    await fleet.stageEverywhere('r2');
    const watchdogs = startWatchdogs(fleet.lab.hosts);
    const load = startLoad({ url: fleet.lab.url, concurrency: 6 });
    const run = watchRollout(fleet, 'r2');
    try {
      await run.stepStarted('web-1', 'overlap');
      const pid = run.proc.pid!;
      process.kill(pid, 'SIGSTOP');
      const frozen = Date.now();
      // the agent hears no heartbeat for 15 s: it releases the lock, the marker stays
      const unlocked = await until(web1, (s) => !s.locked, 30_000);
      expect(unlocked).toMatchObject({ locked: false, drained: true, release: 'r1' });
      expect(Date.now() - frozen).toBeGreaterThanOrEqual(14_000);
      // the marker's lease (twice the host window: ~74 s on the lab) ends; the watchdog heals
      const healed = await until(web1, (s) => !s.drained, 150_000);
      expect(healed).toEqual({ locked: false, drained: false, release: 'r1' });
      process.kill(pid, 'SIGKILL');
      await run.proc;
      // back in rotation: the balancer sends it requests again
      const back = startLoad({ url: fleet.lab.url, concurrency: 2 });
      await new Promise((r) => setTimeout(r, 4000));
      const after = await back.stop();
      expect(after.failed, formatReport(after)).toBe(0);
      expect(Object.keys(after.releases)).toEqual(['r1']);
      expect(after.hosts, formatReport(after)).toHaveProperty('web-1');
    } finally {
      const report = await load.stop();
      await watchdogs.stop();
      expect(report.failed, formatReport(report)).toBe(0);
    }
  }, 300_000);
});

describe('a rollout cancelled with SIGINT mid-handshake (a CI cancel)', () => {
  it('undoes the host it was on, exits 1 within seconds, never leaves it drained, 0 failed requests', async () => {
    await fleet.stageEverywhere('r3');
    const load = startLoad({ url: fleet.lab.url, concurrency: 6 });
    const run = watchRollout(fleet, 'r3');
    await run.stepStarted('web-1', 'overlap');
    const sent = Date.now();
    process.kill(run.proc.pid!, 'SIGINT');
    const r = await run.proc;
    const took = Date.now() - sent;
    const report = await load.stop();
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(took).toBeLessThan(10_000);
    expect(await web1()).toMatchObject({ locked: false, drained: false });
    expect(report.failed, formatReport(report)).toBe(0);
  }, 120_000);
});
