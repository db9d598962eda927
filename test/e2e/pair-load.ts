import { expect } from 'vitest';
import { formatReport, startLoad, type LoadReport } from '../../scripts/lab/index.js';
import type { Fleet } from './fleet-harness.js';

/** What each frontend of the lab's HAProxy pair saw. */
type PairReports = readonly { name: string; report: LoadReport }[];

/** Load through each frontend of the pair, as the clients of both would send it; the stop reports each. */
export function loadOnEach(fleet: Fleet): () => Promise<PairReports> {
  const loads = fleet.lab.haproxies.map((h) => ({
    name: h.name,
    load: startLoad({ url: h.url, concurrency: 4 }),
  }));
  return async () =>
    Promise.all(loads.map(async ({ name, load }) => ({ name, report: await load.stop() })));
}

/**
 * Each frontend carried load and failed none; the receipt is both instances'
 * counters summed (each carried its share): more than none, never more than sent.
 */
export function expectPairServedAndCounted(stdout: string, reports: PairReports): void {
  for (const { name, report } of reports) {
    expect(report.total, name).toBeGreaterThan(100);
    expect(report.failed, `${name}: ${formatReport(report)}`).toBe(0);
  }
  const all = reports.reduce((n, x) => n + x.report.total, 0);
  const receipt =
    /^lb-a \(haproxy be_lab\) \+ lb-b \(haproxy be_lab\) saw 0 failed of ([\d ]+) requests in all during the rollout$/m.exec(
      stdout,
    );
  expect(receipt, stdout).not.toBeNull();
  const counted = Number(receipt?.[1]?.replaceAll(' ', ''));
  expect(counted).toBeGreaterThan(0);
  expect(counted).toBeLessThanOrEqual(all);
}
