import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport } from '../../scripts/lab/index.js';
import type { HostOutcome } from '../../src/rollout/types.js';
import { liveReleases, rolloutUnderLoad, startFleet, type Fleet } from './fleet-harness.js';

/*
 * "deployed" must be proof: hosts whose services misbehave in ordinary ways.
 * One lab, in order: hosts started by hand before handoff (adopted by the
 * first rollout), a stop that exits 0 and stops nothing, a release whose
 * readiness fails while drained (the health library), and a release that
 * keeps saying it is the old one (expect_release). Every rollout under load.
 */
let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 3,
    subnet: '127.0.17',
    workDir: '/tmp/handoff-e2e-17',
    release: null,
  });
});
afterAll(async () => {
  await fleet?.stop();
});

const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));

/** The release the app on each host answers with, asked directly (not through HAProxy). */
async function answering(): Promise<string[]> {
  return Promise.all(
    fleet.lab.hosts.map(async (h) => {
      const r = await fetch(`http://${h.address}:8000/`);
      return ((await r.json()) as { release: string }).release;
    }),
  );
}

const rollout = (release: string) => rolloutUnderLoad(fleet, release);

const stepsOf = (o: HostOutcome | undefined) => (o?.steps ?? []).map((s) => s.step);

/** the step a failed host stopped at, as the JSON result names it */
const stoppedAt = (o: HostOutcome | undefined) =>
  (o as { stopped_at?: string } | undefined)?.stopped_at;

describe('a rollout whose "deployed" is proof', () => {
  it('adopts hosts whose services were started by hand, with no current: every host ends on the new release', async () => {
    for (const h of fleet.lab.hosts) {
      const dir = await fleet.lab.stageRelease(h, 'v0');
      await fleet.lab.startByHand(h, path.posix.join(dir));
      await fleet.lab.waitForStatus(h.name, (s) => s === 'UP', 20_000);
    }
    await fleet.stageEverywhere('r1');
    const r = await rollout('r1');
    expect(r.code, r.log).toBe(0);
    expect(r.report.total, 'the load ran').toBeGreaterThan(0);
    expect(r.report.failed, formatReport(r.report)).toBe(0);
    expect(r.log).toContain(
      'adopting: app, worker already answer; stopping them before the first release',
    );
    for (const o of r.result.hosts)
      expect(o.steps.find((s) => s.step === 'stop')?.detail).toBe('adopted app, worker');
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);
    // the new release, not the hand-started one, is what answers
    expect(await answering()).toEqual(['r1', 'r1', 'r1']);
  });

  it('fails at stop when stop exits 0 and stops nothing: the old release keeps serving, the rest untouched', async () => {
    await fleet.configure({ brokenStop: 'app' });
    await fleet.stageEverywhere('r2');
    const r = await rollout('r2');
    expect(r.code, r.log).toBe(1);
    expect(r.report.total, 'the load ran').toBeGreaterThan(0);
    expect(r.report.failed, formatReport(r.report)).toBe(0);
    expect(r.stderr).toContain(
      'rollout of r2 rolled back on web-1 at stop; web-2, web-3 not reached',
    );
    expect(r.result.hosts[0]?.error).toBe(
      'web-1: app: stop exited 0 but lab-self:8000 still accepts connections',
    );
    // nothing was switched or started on top of the live process
    expect(stoppedAt(r.result.hosts[0])).toBe('stop');
    expect(stepsOf(r.result.hosts[0])).not.toContain('switch');
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);
    expect(await answering()).toEqual(['r1', 'r1', 'r1']);
    await fleet.lab.waitForStatus('web-1', (s) => s === 'UP', 20_000);
    await fleet.configure();
  });

  it('catches a release whose readiness fails at verify, while drained: never undrained, rolled back', async () => {
    await fleet.stageEverywhere('r3', { bad: true });
    const r = await rollout('r3');
    expect(r.code, r.log).toBe(1);
    expect(r.report.total, 'the load ran').toBeGreaterThan(0);
    expect(r.report.failed, formatReport(r.report)).toBe(0);
    expect(stoppedAt(r.result.hosts[0])).toBe('verify');
    expect(r.stderr).toContain('rollout of r3 rolled back on web-1 at verify');
    expect(r.result.hosts[0]?.error).toContain('app ✗ status-503');
    // the balancer never had the target with r3 live: no undrain before the rollback
    const steps = stepsOf(r.result.hosts[0]);
    expect(steps.slice(steps.indexOf('verify'))).toEqual(['verify', 'rollback', 'unlock']);
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);
    expect(await answering()).toEqual(['r1', 'r1', 'r1']);
  });

  it('with expect_release, fails a release that answers with the old id: release-mismatch', async () => {
    await fleet.configure({ expectRelease: true });
    await fleet.stageEverywhere('r4', { claim: 'r1' });
    const r = await rollout('r4');
    expect(r.code, r.log).toBe(1);
    expect(r.report.total, 'the load ran').toBeGreaterThan(0);
    expect(r.report.failed, formatReport(r.report)).toBe(0);
    // caught while drained: the balancer never had r4 in rotation
    expect(stoppedAt(r.result.hosts[0])).toBe('verify');
    expect(r.result.hosts[0]?.error).toContain('app ✗ release-mismatch (answers r1, expected r4)');
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);
    const verify = await fleet.deploy(['verify']);
    expect(verify.code, verify.stdout).toBe(0);
    expect(verify.stdout).toMatch(/web-1\s+app\s+✓\s+r1\s/);
  });

  it('refuses, exit 3 and nothing changed, a deploy.yml changed since the last setup', async () => {
    await fleet.writeConfig({ expectRelease: false });
    const r = await fleet.deploy(['rollout', '--release', 'r2']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(
      "the host config on web-1, web-2, web-3 is not this deploy.yml's (changed since the last 'deploy setup')",
    );
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);
  });
});
