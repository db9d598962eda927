import { expect } from 'vitest';
import {
  formatReport,
  startLoad,
  startWatchdogs,
  watchdogActions,
} from '../../scripts/lab/index.js';
import type { LabHost } from '../../scripts/lab/index.js';
import type { Fleet } from './fleet-harness.js';

export { startWatchdogs, watchdogActions };

/**
 * A rollout under keep-alive load through HAProxy with every host's watchdog
 * ticking: it must succeed with zero failed requests, serve the new release,
 * and the watchdog must never act. Returns what each watchdog printed.
 */
export async function rolloutWatched(
  fleet: Fleet,
  release: string,
  env?: (host: LabHost) => Record<string, string>,
): Promise<string[]> {
  const watchdogs = startWatchdogs(fleet.lab.hosts, env ? { env } : {});
  const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
  const r = await fleet.deploy(['rollout', '--release', release]);
  const report = await load.stop();
  const outputs = await watchdogs.stop();
  expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
  expect(report.failed, formatReport(report)).toBe(0);
  expect(report.ok).toBeGreaterThan(100);
  expect(report.releases).toHaveProperty(release);
  expect(await watchdogActions(fleet.lab, outputs)).toEqual([]);
  return outputs;
}
