import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import { resultOf } from '../../scripts/bench/rollout.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';

/**
 * What an ALB's API does to a rollout, against the lab's ELBv2 endpoint:
 * throttling, refusals, its routing minimum, slow start, and `deploy infra
 * apply` changing the checks HAProxy really runs.
 */
let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 2,
    subnet: '127.0.31',
    workDir: '/tmp/handoff-e2e-31',
    balancer: 'alb',
  });
});
afterAll(async () => {
  await fleet?.stop();
});

const endpoint = () => fleet.lab.elbv2!;
const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));
const linesWith = (text: string, word: RegExp): string[] =>
  text.split('\n').filter((l) => word.test(l));
/** Whether each host carries the drain marker, by its own agent (`deploy status`). */
async function drainMarkers(): Promise<boolean[]> {
  const r = await fleet.deploy(['status', '--json']);
  const result = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event?: string; hosts?: { status?: { draining: unknown } }[] })
    .find((l) => l.event === 'result');
  return (result?.hosts ?? []).map((h) => h.status?.draining != null);
}
/** What the endpoint says of each lab target right now. */
async function targetStates(): Promise<string[]> {
  const listed = (await endpoint().group.health([], Date.now())) as {
    Target: { Id: string };
    TargetHealth: { State: string };
  }[];
  return fleet.lab.hosts.map(
    (h) => listed.find((d) => d.Target.Id === h.address)?.TargetHealth.State ?? 'unused',
  );
}
/**
 * `deploy rollout` with drain.method deregister while the endpoint denies
 * `action` once; what it printed, and where the fleet stands right after.
 */
async function deniedWithDeregister(action: 'RegisterTargets' | 'DeregisterTargets') {
  await fleet.configure({ drainMethod: 'deregister' });
  try {
    const before = endpoint().calls.get('DeregisterTargets') ?? 0;
    endpoint().inject(action, 'access-denied', 1);
    const r = await fleet.deploy(['rollout', '--release', 'r2']);
    return {
      code: r.code,
      output: `${r.stderr}\n${r.stdout}`,
      lines: linesWith(r.stderr, new RegExp(`elasticloadbalancing:${action}\\b`)),
      deregisterCalls: (endpoint().calls.get('DeregisterTargets') ?? 0) - before,
      markers: await drainMarkers(),
      states: await targetStates(),
      servers: await Promise.all(fleet.lab.hosts.map((h) => fleet.lab.serverStatus(h.name))),
    };
  } finally {
    await fleet.configure();
  }
}
const MINIMUM_COUNT = 'target_group_health.unhealthy_state_routing.minimum_healthy_targets.count';

describe('deploy rollout through an ALB API that refuses', () => {
  it('AccessDenied on DescribeTargetHealth: exit 3 before any drain, naming the IAM permission', async () => {
    await fleet.stageEverywhere('r2');
    endpoint().inject('DescribeTargetHealth', 'access-denied', 1);
    const r = await fleet.deploy(['rollout', '--release', 'r2']);
    expect(r.code, r.stderr).toBe(3);
    const lines = linesWith(r.stderr, /elasticloadbalancing:DescribeTargetHealth/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('access denied');
    expect(r.stderr).not.toContain('lab'); // the dummy credentials are never printed
    expect(endpoint().calls.get('DeregisterTargets')).toBeUndefined();
    expect(await releases()).toEqual(['r1', 'r1']);
    for (const h of fleet.lab.hosts) expect(await fleet.lab.serverStatus(h.name)).toBe('UP');
  });

  it('drain.method deregister, AccessDenied on DeregisterTargets: exit 3, one line, nothing drained', async () => {
    const denied = await deniedWithDeregister('DeregisterTargets');
    expect(denied.code, denied.output).toBe(3);
    expect(denied.lines, denied.output).toHaveLength(1);
    expect(denied.lines[0]).toContain('access denied');
    // it was asked, and refused: the drain marker was never written, nothing is left drained
    expect(denied.deregisterCalls).toBe(1);
    expect(denied.output).not.toContain('left DRAINED');
    expect(denied.markers).toEqual([false, false]);
    expect(denied.states).toEqual(['healthy', 'healthy']);
    expect(denied.servers).toEqual(['UP', 'UP']);
    expect(await releases()).toEqual(['r1', 'r1']);
  });

  it('drain.method deregister, AccessDenied on RegisterTargets: exit 3 in preflight, nothing deregistered', async () => {
    const denied = await deniedWithDeregister('RegisterTargets');
    expect(denied.code, denied.output).toBe(3);
    expect(denied.lines, denied.output).toHaveLength(1);
    expect(denied.lines[0]).toContain('access denied');
    expect(denied.deregisterCalls).toBe(0);
    expect(denied.markers).toEqual([false, false]);
    expect(denied.states).toEqual(['healthy', 'healthy']);
    expect(await releases()).toEqual(['r1', 'r1']);
  });

  it('a target the group has only on another port: exit 3 in preflight naming it', async () => {
    await fleet.configure({ targets: { 'web-2': '127.0.31.2:9000' } });
    const r = await fleet.deploy(['rollout', '--release', 'r2']);
    await fleet.configure();
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(
      "preflight: not registered in the balancer's target group: web-2 (target 127.0.31.2:9000: registered on port 8000, not 9000)",
    );
    expect(await releases()).toEqual(['r1', 'r1']);
  });

  it('a group at its fail-open minimum: the capacity guard refuses to drain, exit 3, and says why', async () => {
    endpoint().group.modifyAttributes([{ Key: MINIMUM_COUNT, Value: '2' }]);
    try {
      const r = await fleet.deploy(['rollout', '--release', 'r2']);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain(
        "capacity guard: draining 127.0.31.1 would leave 1 healthy target(s), below the target group's unhealthy-state routing minimum of 2 target(s): the ALB would fail open",
      );
      expect(await releases()).toEqual(['r1', 'r1']);
    } finally {
      endpoint().group.modifyAttributes([{ Key: MINIMUM_COUNT, Value: '1' }]);
    }
  });
});

describe('deploy rollout through a busy ALB API', () => {
  it('DescribeTargetHealth throttled 6 times and failing twice: the rollout succeeds and says so once', async () => {
    endpoint().inject('DescribeTargetHealth', 'throttle', 6);
    endpoint().inject('DescribeTargetHealth', 'server-error', 2);
    const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
    const r = await fleet.deploy(['rollout', '--release', 'r2']);
    const report = await load.stop();
    expect(r.code, r.stderr).toBe(0);
    expect(report.failed, formatReport(report)).toBe(0);
    const said = linesWith(r.stderr, /throttled|failed \(5xx\)/);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^WARN the balancer's API throttled DescribeTargetHealth for \d+\.\d s \(\d+ attempts\); retried with backoff and went on$/,
    );
    expect(await releases()).toEqual(['r2', 'r2']);
  });

  it('with slow_start set, the second host drains only once the first has ramped up', async () => {
    // AWS's shortest slow start (TargetGroupAttribute: "The range is 30-900 seconds")
    endpoint().group.modifyAttributes([{ Key: 'slow_start.duration_seconds', Value: '30' }]);
    try {
      await fleet.stageEverywhere('r3');
      const r = await fleet.deploy(['rollout', '--release', 'r3', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const [first, second] = resultOf(r.stdout).hosts;
      const back = first?.steps.find((s) => s.step === 'await-in');
      const drain = second?.steps.find((s) => s.step === 'drain');
      expect(back && drain).toBeTruthy();
      expect(drain!.offset_ms).toBeGreaterThanOrEqual(back!.offset_ms + back!.duration_ms + 30_000);
      expect(r.stdout).toContain('slow start: waiting');
    } finally {
      endpoint().group.modifyAttributes([{ Key: 'slow_start.duration_seconds', Value: '0' }]);
    }
  });
});

describe('deploy infra apply against the ALB API', () => {
  it('--dry-run prints the diff and changes nothing; apply changes the group and HAProxy follows', async () => {
    // AWS's ranges (interval ≥ 5s) make drain-to-verified 34s: a slower watchdog keeps --strict quiet
    await fleet.writeConfig({
      checks: { interval: 6000, fall: 2, rise: 3 },
      watchdogEveryMs: 15_000,
    });
    const checksAt = async () =>
      (await fleet.lab.showStat())
        .filter((row) => row.pxname === fleet.lab.backend && row.svname?.startsWith('web-'))
        .map((row) => `${row.check_fall}/${row.check_rise}`);
    expect(await checksAt()).toEqual(['2/2', '2/2']);

    const dry = await fleet.deploy(['infra', 'apply', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('alb: would change:');
    expect(dry.stdout).toContain('interval: 5s -> 6s');
    expect(endpoint().calls.get('ModifyTargetGroup')).toBeUndefined();
    expect(await checksAt()).toEqual(['2/2', '2/2']);

    const apply = await fleet.deploy(['infra', 'apply']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('alb: changed:');
    expect(await checksAt()).toEqual(['2/3', '2/3']);
    for (const h of fleet.lab.hosts)
      await fleet.lab.waitForStatus(h.name, (s) => s === 'UP', 20_000);

    const check = await fleet.deploy(['check', '--live', '--strict']);
    expect(check.code, `${check.stderr}\n${check.stdout}`).toBe(0);
    expect(check.stdout).toContain('live from the alb balancer');
  });
});
