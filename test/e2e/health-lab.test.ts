import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport } from '../../scripts/lab/index.js';
import { liveReleases, rolloutUnderLoad, startFleet, type Fleet } from './fleet-harness.js';

/*
 * The lab's demo services on the health library (app: handler and
 * gracefulShutdown; worker: startWorkerMarks), through real rollouts under
 * load: the behaviours rollout-verdict.test.ts relies on, on a lab of its own.
 */
let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({ hosts: 2, subnet: '127.0.18', workDir: '/tmp/handoff-e2e-18' });
});
afterAll(async () => {
  await fleet?.stop();
});

const rollout = (release: string) => rolloutUnderLoad(fleet, release);
const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));

describe("the lab's services on the health library", () => {
  it('roll out under load without one failed request; app and worker verify', async () => {
    await fleet.stageEverywhere('r2');
    const r = await rollout('r2');
    expect(r.code, r.log).toBe(0);
    expect(r.report.failed, formatReport(r.report)).toBe(0);
    expect(await releases()).toEqual(['r2', 'r2']);
    const verify = await fleet.deploy(['verify']);
    expect(verify.code, verify.stdout).toBe(0);
    expect(verify.stdout).toMatch(/web-1\s+worker\s+✓/);
  });

  it('a bad release fails verify while drained and is rolled back before undrain', async () => {
    await fleet.stageEverywhere('r3', { bad: true });
    const r = await rollout('r3');
    expect(r.code, r.log).toBe(1);
    expect(r.report.failed, formatReport(r.report)).toBe(0);
    expect(r.result.hosts[0]?.error).toContain('app ✗ status-503');
    const steps = (r.result.hosts[0]?.steps ?? []).map((s) => s.step);
    expect(steps.slice(steps.indexOf('verify'))).toEqual(['verify', 'rollback', 'unlock']);
    expect(await releases()).toEqual(['r2', 'r2']);
  });
});
