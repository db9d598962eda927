import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';
import { watchGroupStates } from './group-states.js';

/**
 * A host in two target groups (a public and an internal ALB): the lab's ELBv2
 * endpoint serves two groups, each backed by one HAProxy of the pair (the
 * internal one with slower checks), and deploy.yml names both under
 * `balancers:`. The real SDK talks to both through its endpoint override.
 */
let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 2,
    subnet: '127.0.92',
    workDir: '/tmp/handoff-e2e-92',
    balancer: 'alb',
    // within AWS's ranges, as an ALB takes them; slower than the public group's 5s × 2
    pair: { interval: 5000, fall: 3, rise: 2, checkTimeout: 2000 },
  });
});
afterAll(async () => {
  await fleet?.stop();
});

describe('deploy rollout with two ALB target groups', () => {
  it('the endpoint serves both groups, each with its own checks', () => {
    const groups = fleet.lab.elbv2!.groups;
    expect(groups.map((g) => g.name)).toEqual(['lab', 'lab-internal']);
    expect(groups.map((g) => g.describeGroup().UnhealthyThresholdCount)).toEqual([2, 3]);
    expect(new Set(groups.map((g) => g.arn)).size).toBe(2);
  });

  it('drain.method deregister: zero failed requests on each frontend, each group’s target drained and back', async () => {
    await fleet.configure({ drainMethod: 'deregister' });
    await fleet.stageEverywhere('r2');
    const loads = fleet.lab.haproxies.map((h) => ({
      name: h.name,
      load: startLoad({ url: h.url, concurrency: 4 }),
    }));
    const { result: r, seen } = await watchGroupStates(
      fleet.lab.elbv2!.groups,
      fleet.lab.hosts.map((h) => h.address),
      () => fleet.deploy(['rollout', '--release', 'r2', '--json']),
    );
    const reports = await Promise.all(
      loads.map(async ({ name, load }) => ({ name, report: await load.stop() })),
    );
    expect(r.code, r.stderr).toBe(0);
    for (const { name, report } of reports) {
      expect(report.total, name).toBeGreaterThan(100);
      expect(report.failed, `${name}: ${formatReport(report)}`).toBe(0);
    }
    expect(await liveReleases((args) => fleet.deploy(args))).toEqual(['r2', 'r2']);
    // each host left each group (deregistered, drained) and came back in it
    for (const [group, perTarget] of seen)
      for (const states of perTarget)
        expect(states, group).toEqual(['healthy', 'draining', 'unused', 'initial', 'healthy']);
    // each wait records when each group agreed, by the balancer's name
    const result = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      hosts: { steps: { step: string; balancers?: Record<string, number | null> }[] }[];
    };
    for (const step of ['await-out', 'await-in']) {
      const wait = result.hosts[0]?.steps.find((s) => s.step === step);
      expect(Object.keys(wait?.balancers ?? {}), step).toEqual(['public', 'internal']);
      expect(Object.values(wait?.balancers ?? {}).every((ms) => typeof ms === 'number')).toBe(true);
    }
    for (const h of fleet.lab.haproxies)
      for (const host of fleet.lab.hosts) expect(await h.serverStatus(host.name)).toBe('UP');
  });
});
