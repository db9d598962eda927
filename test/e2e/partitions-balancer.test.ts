import { describe, expect, it } from 'vitest';
import { ELBV2_PORT } from '../../scripts/lab/elbv2/endpoint.js';
import { liveReleases } from './fleet-harness.js';
import {
  expectNothingLost,
  rolloutThroughFault,
  usePartitionLab,
  watchThroughFault,
} from './partition-lab.js';
import { hostOnDisk } from './watch-rollout.js';

/**
 * The orchestrator cut from the balancer's API (the lab's ELBv2 endpoint on
 * 127.0.189.100:4566; HAProxy behind it keeps checking and serving): the
 * rollout cannot confirm a host out of rotation, so it must not stop it.
 * Subnet 127.0.189.0/24 only.
 */
const lab = usePartitionLab('127.0.189', { releases: ['r2', 'r3'], balancer: 'alb' });
const releases = () => liveReleases((a) => lab.fleet.deploy(a));
const api = () => ({
  kind: 'drop' as const,
  address: lab.fleet.lab.layout.frontend.address,
  ports: [ELBV2_PORT],
});

describe("the orchestrator cut from the balancer's API mid-drain", () => {
  it('the drained host is never stopped: the rollout fails at await-out, puts it back and stops; one host out at most, 0 failed requests', async () => {
    await watchThroughFault(lab, 'r2', async (run) => {
      await run.stepStarted('web-1', 'drain');
      await lab.faults.apply(api());
      const cutAt = Date.now();
      const r = await run.proc;
      // await-out's bound (12 s) and its probe's grace, then the end's AWS calls, each
      // bounded by the SDK timeouts: never the minutes a dropped connection would wait
      expect(Date.now() - cutAt).toBeLessThan(90_000);
      const log = `${String(r.stderr)}\n${String(r.stdout)}`;
      expect(r.exitCode, log).not.toBe(0);
      expect(run.events.find((e) => e.event === 'result')?.ok, log).toBe(false);
      // web-1 never got past confirming it out: not stopped, not switched
      const steps = run.events
        .filter((e) => e.event === 'step.start' && e.host === 'web-1')
        .map((e) => e.fields?.step);
      expect(steps, log).not.toContain('stop');
      expect(steps, log).not.toContain('switch');
      expect(await hostOnDisk(lab.fleet, 'web-1')).toEqual({
        locked: false,
        drained: false,
        release: 'r1',
      });
    });
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);
  }, 200_000);

  it('healed: the next rollout deploys everywhere, 0 failed requests', async () => {
    const run = await rolloutThroughFault(lab, 'r2', async () => {});
    expect(run.code, run.log).toBe(0);
    expectNothingLost(run);
    expect(await releases()).toEqual(['r2', 'r2', 'r2']);
  }, 150_000);
});
