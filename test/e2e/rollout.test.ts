import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';
import { rolloutWatched } from './watchdogs.js';

let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({ hosts: 3, subnet: '127.0.12', workDir: '/tmp/handoff-e2e-rollout' });
});
afterAll(async () => {
  await fleet?.stop();
});

const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));

describe('deploy rollout under load', () => {
  it('reaches the new release on every host with zero failed requests, and the watchdog never acts', async () => {
    await fleet.stageEverywhere('r2');
    const outputs = await rolloutWatched(fleet, 'r2');
    expect(await releases()).toEqual(['r2', 'r2', 'r2']);
    // it did run: every host's watchdog saw the rollout's lock and stood aside
    for (const output of outputs) expect(output).toContain('host lock held by rollout');
  });

  it('the same load sees the failures of a naive stop/start rollout', async () => {
    const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
    for (const h of fleet.lab.hosts) {
      const ctl =
        'cd /srv/handoff/lab/current && export RELEASE=r2 STATE_DIR=/run/handoff/lab BIND=lab-self PORT=8000';
      await fleet.lab.inHost(h, [
        'sh',
        '-c',
        `${ctl} && node ctl.mjs stop app && node ctl.mjs start app`,
      ]);
    }
    const report = await load.stop();
    expect(report.failed, formatReport(report)).toBeGreaterThan(0);
    // let HAProxy see every host healthy again before the next test
    for (const h of fleet.lab.hosts)
      await fleet.lab.waitForStatus(h.name, (s) => s === 'UP', 20_000);
  });

  it('rolls back a release whose health fails on the first host, exit 1, zero failed requests', async () => {
    await fleet.stageEverywhere('r3', { bad: true });
    const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
    const r = await fleet.deploy(['rollout', '--release', 'r3']);
    const report = await load.stop();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'rollout of r3 rolled back on web-1 at verify; web-2, web-3 not reached',
    );
    expect(report.failed, formatReport(report)).toBe(0);
    expect(await releases()).toEqual(['r2', 'r2', 'r2']);
    const verify = await fleet.deploy(['verify']);
    expect(verify.code, verify.stdout).toBe(0);
  });
});
