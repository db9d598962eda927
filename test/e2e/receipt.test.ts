import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import { labFiles } from '../../scripts/lab/layout.js';
import { systemClock } from '../../src/clock.js';
import { BlockedError } from '../../src/errors.js';
import { createAlbMetrics } from '../../src/balancer/alb/receipt/cloudwatch.js';
import { countsOf } from '../../src/evidence/kit/counts.js';
import { readHaproxyCounters } from '../../src/balancer/haproxy/receipt/read.js';
import { HaproxyCountSource } from '../../src/balancer/haproxy/receipt/source.js';
import { totalOf } from '../../src/evidence/kit/total.js';
import { rolloutUnderLoad, startFleet, type Fleet } from './fleet-harness.js';

/**
 * The receipt's sources against the real lab under real load: HAProxy's
 * per-server counters through its runtime API, and the ALB's CloudWatch
 * metrics through the SDK against the lab's endpoint (answered from the same
 * HAProxy), each agreeing with what the load generator counted.
 */
let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 2,
    subnet: '127.0.70',
    workDir: '/tmp/handoff-e2e-70',
    balancer: 'alb',
  });
});
afterAll(async () => {
  await fleet?.stop();
});

function haproxySource() {
  const { layout } = fleet.lab;
  const where = { socket: labFiles(layout.workDir).haproxySocket, backend: layout.backend };
  return new HaproxyCountSource(
    () => readHaproxyCounters(where),
    new Map(fleet.lab.hosts.map((h) => [h.name, h.name])),
    systemClock,
    layout.backend,
  );
}

async function cloudWatch() {
  for (const [k, v] of Object.entries(fleet.lab.deployEnv())) process.env[k] = v;
  return createAlbMetrics(
    {
      targetGroupArn: fleet.lab.elbv2!.group.arn,
      loadBalancerArn: fleet.lab.elbv2!.group.loadBalancerArn,
      region: 'us-east-1',
    },
    systemClock,
  );
}

describe('the receipt under load', () => {
  it('counts the failed requests the load generator saw, per server and in all, from HAProxy and CloudWatch', async () => {
    const backend = fleet.lab.layout.backend;
    const metrics = await cloudWatch();
    const window = await haproxySource().open();
    const from = Date.now();
    const load = startLoad({ url: fleet.lab.url, concurrency: 4 });
    await delay(1500);
    // no server left for a moment: the backend's own 503s, which no server row holds
    for (const h of fleet.lab.hosts)
      await fleet.lab.haproxy(`set server ${backend}/${h.name} state maint`);
    await delay(700);
    for (const h of fleet.lab.hosts)
      await fleet.lab.haproxy(`set server ${backend}/${h.name} state ready`);
    await delay(1500);
    const report = await load.stop();
    const to = Date.now();
    const counts = await window.read();
    const total = totalOf(counts);
    expect(total.kind, JSON.stringify(total)).toBe('counted');
    expect(report.failed, formatReport(report)).toBeGreaterThan(0);
    expect(countsOf(total).failed, formatReport(report)).toBe(report.failed);
    expect(countsOf(total).requests).toBe(report.total);
    for (const h of fleet.lab.hosts)
      expect(countsOf(counts.get(h.name)!).requests).toBe(report.hosts[h.name] ?? 0);

    const receipt = await metrics.receipt(from, to);
    metrics.close();
    // CloudWatch counts whole minutes; nothing but this load ran in them
    expect(receipt.counts.failed).toBe(report.failed);
    expect(receipt.counts.requests).toBe(report.total);
  });

  it("a rollout on the ALB ends with CloudWatch's receipt, provisional, and deploy receipt gives the same figures for its window", async () => {
    await fleet.stageEverywhere('r2');
    // CloudWatch counts whole minutes: the first test's failures must not share one with this
    await delay(60_000 - (Date.now() % 60_000) + 500);
    const run = await rolloutUnderLoad(fleet, 'r2');
    expect(run.code, run.log).toBe(0);
    expect(run.report.failed, formatReport(run.report)).toBe(0);
    const result = run.result as unknown as {
      receipt: {
        source: string;
        total: { requests: number; failed: number };
        window: { from: string; to: string };
        final: boolean;
        note: string;
      };
    };
    const { receipt } = result;
    expect(receipt.source).toMatch(/^CloudWatch \S+$/);
    expect(receipt.total.failed).toBe(0);
    // read as the rollout ended, before the load stopped: some of the load's requests, at least
    expect(receipt.total.requests).toBeGreaterThan(0);
    expect(receipt.final).toBe(false);
    expect(receipt.note).toContain(`deploy receipt --from ${receipt.window.from.slice(0, 19)}Z`);
    const again = await fleet.deploy([
      'receipt',
      '--from',
      receipt.window.from,
      '--to',
      receipt.window.to,
      '--json',
    ]);
    expect(again.code, again.stderr).toBe(0);
    const line = JSON.parse(again.stdout.trim().split('\n').at(-1) ?? '{}') as {
      receipt: typeof receipt;
    };
    expect(line.receipt.total.failed).toBe(0);
    expect(line.receipt.total.requests).toBeGreaterThanOrEqual(receipt.total.requests);
    const text = await fleet.deploy([
      'receipt',
      '--from',
      receipt.window.from,
      '--to',
      receipt.window.to,
    ]);
    expect(text.stdout).toMatch(
      /^CloudWatch \S+ saw 0 failed of [\d ]+ requests in all during the rollout \(CloudWatch, whole minutes /,
    );
  }, 240_000);

  it('deploy receipt: a window that ends before it opens is bad input, exit 2, one line', async () => {
    const r = await fleet.deploy(['receipt', '--from', '1h', '--to', '2h']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--to must be after --from/);
  });

  it('names the IAM action when GetMetricData is denied (a BlockedError, exit 3)', async () => {
    const metrics = await cloudWatch();
    fleet.lab.elbv2!.inject('GetMetricData', 'access-denied', 1);
    const error = await metrics.receipt(Date.now() - 60_000, Date.now()).catch((e: unknown) => e);
    metrics.close();
    expect(error).toBeInstanceOf(BlockedError);
    expect((error as Error).message).toContain('cloudwatch:GetMetricData');
  });
});
