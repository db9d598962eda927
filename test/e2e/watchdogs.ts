import { execa, type ResultPromise } from 'execa';
import { nsenterArgv, type Lab } from '../../scripts/lab/index.js';

export interface Watchdogs {
  /** stop every loop; resolves with what each printed */
  stop(): Promise<string[]>;
}

/** The real watchdog, ticking every second inside every host, as cron would run it (faster). */
export function startWatchdogs(lab: Lab): Watchdogs {
  const procs: ResultPromise[] = lab.hosts.map((h) => {
    const [cmd, ...args] = nsenterArgv(h, [
      '/opt/handoff/bin/deploy',
      'watchdog',
      '--loop',
      '1',
      '-c',
      '/etc/handoff/lab.json',
    ]);
    return execa(cmd as string, args, { reject: false, all: true, timeout: 600_000 });
  });
  return {
    stop: async () => {
      for (const p of procs) p.kill('SIGTERM');
      const results = await Promise.all(procs);
      return results.map((r) => String(r.all ?? ''));
    },
  };
}

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
