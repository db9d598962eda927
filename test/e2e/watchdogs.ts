import type { Lab } from '../../scripts/lab/index.js';

export { startWatchdogs } from '../../scripts/lab/index.js';

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
