import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import { labFiles } from '../../scripts/lab/layout.js';
import { systemClock } from '../../src/clock.js';
import { BlockedError } from '../../src/errors.js';
import { createAlbMetrics } from '../../src/evidence/cloudwatch.js';
import { countsOf } from '../../src/evidence/counts.js';
import { readHaproxyCounters } from '../../src/evidence/haproxy-read.js';
import { HaproxyCountSource, totalOf } from '../../src/evidence/haproxy-source.js';
import { startFleet, type Fleet } from './fleet-harness.js';

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

  it('names the IAM action when GetMetricData is denied (a BlockedError, exit 3)', async () => {
    const metrics = await cloudWatch();
    fleet.lab.elbv2!.inject('GetMetricData', 'access-denied', 1);
    const error = await metrics.receipt(Date.now() - 60_000, Date.now()).catch((e: unknown) => e);
    metrics.close();
    expect(error).toBeInstanceOf(BlockedError);
    expect((error as Error).message).toContain('cloudwatch:GetMetricData');
  });
});
