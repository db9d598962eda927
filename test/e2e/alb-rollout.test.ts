import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import { liveReleases, rolloutUnderLoad, startFleet, type Fleet } from './fleet-harness.js';
import { watchGroupStates } from './group-states.js';

/**
 * The rollout through `balancer.kind: alb`: the real SDK, through its standard
 * endpoint override, against the lab's ELBv2 endpoint, which answers from and
 * acts on the lab's real HAProxy.
 */
let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 2,
    subnet: '127.0.30',
    workDir: '/tmp/handoff-e2e-30',
    balancer: 'alb',
  });
});
afterAll(async () => {
  await fleet?.stop();
});

const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));

/** Every state the endpoint reports for each target, sampled while `run` runs. */
async function watchStates<T>(run: () => Promise<T>): Promise<{ result: T; seen: string[][] }> {
  const group = fleet.lab.elbv2!.group;
  const ids = fleet.lab.hosts.map((h) => h.address);
  const { result, seen } = await watchGroupStates([group], ids, run);
  return { result, seen: seen.get(group.name) ?? [] };
}

describe('deploy rollout with balancer.kind alb under load', () => {
  it('drain.method health: every host on the new release, zero failed requests', async () => {
    await fleet.stageEverywhere('r2');
    const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
    const r = await fleet.deploy(['rollout', '--release', 'r2']);
    const report = await load.stop();
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
    expect(report.failed, formatReport(report)).toBe(0);
    expect(report.ok).toBeGreaterThan(100);
    expect(await releases()).toEqual(['r2', 'r2']);
    // through the ALB API: the SDK's output never reaches the user
    expect(r.stderr).not.toMatch(/aws-sdk|NodeDeprecationWarning|AWS SDK/i);
  });

  it('drain.method deregister: zero failed requests, each target draining, unused, initial, healthy', async () => {
    await fleet.configure({ drainMethod: 'deregister' });
    await fleet.stageEverywhere('r3');
    const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
    const { result: r, seen } = await watchStates(() =>
      fleet.deploy(['rollout', '--release', 'r3']),
    );
    const report = await load.stop();
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
    expect(report.failed, formatReport(report)).toBe(0);
    expect(await releases()).toEqual(['r3', 'r3']);
    for (const states of seen)
      expect(states).toEqual(['healthy', 'draining', 'unused', 'initial', 'healthy']);
    // the endpoint acted on HAProxy: both servers are back in rotation there
    for (const h of fleet.lab.hosts) expect(await fleet.lab.serverStatus(h.name)).toBe('UP');
  });
});

describe('deploy rollout with balancer.kind alb: a release whose health fails', () => {
  // after the deregister test above: deregister first, then health
  it.each(['deregister', 'health'] as const)(
    'drain.method %s: rolled back on the first host, exit 1, zero failed requests, the other host untouched',
    async (drainMethod) => {
      if (drainMethod === 'health') await fleet.configure();
      else await fleet.configure({ drainMethod });
      const bad = `r4-${drainMethod}`;
      await fleet.stageEverywhere(bad, { bad: true });
      const { result: r, seen } = await watchStates(() => rolloutUnderLoad(fleet, bad));
      expect(r.code, r.log).toBe(1);
      expect(r.stderr).toContain(
        `rollout of ${bad} rolled back on web-1 at verify; web-2 not reached`,
      );
      expect(r.report.failed, formatReport(r.report)).toBe(0);
      expect(r.result.hosts.map((h) => [h.host, h.result])).toEqual([['web-1', 'rolled-back']]);
      expect(await releases()).toEqual(['r3', 'r3']);
      // web-2 was never taken out; web-1 came back healthy through the balancer
      expect(seen[1]).toEqual(['healthy']);
      expect(seen[0]?.at(-1)).toBe('healthy');
      for (const h of fleet.lab.hosts) expect(await fleet.lab.serverStatus(h.name)).toBe('UP');
      const verify = await fleet.deploy(['verify']);
      expect(verify.code, verify.stdout).toBe(0);
    },
  );
});
