import { expect } from 'vitest';
import { formatReport, startLoad, startWatchdogs } from '../../scripts/lab/index.js';
import type { Lab, LabHost } from '../../scripts/lab/index.js';
import type { Fleet } from './fleet-harness.js';

export { startWatchdogs };

/** The watchdog's actions are restarts: its own log lines, and its audit lines on the host. */
export async function watchdogActions(lab: Lab, outputs: readonly string[]): Promise<string[]> {
  const actions = outputs.flatMap((o) => o.split('\n').filter((l) => /restart|gave up/.test(l)));
  for (const h of lab.hosts) {
    const audit = await lab.inHost(h, [
      'sh',
      '-c',
      'cat /srv/handoff/lab/audit.jsonl 2>/dev/null || true',
    ]);
    actions.push(...audit.stdout.split('\n').filter((l) => l.includes('watchdog.')));
  }
  return actions;
}

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
