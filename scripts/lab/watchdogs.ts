import { execa, type ResultPromise } from 'execa';
import { nsenterArgv } from './exec.js';
import type { LabHost } from './host.js';
import type { Lab } from './lab-api.js';

export interface Watchdogs {
  /** stop every loop; resolves with what each printed */
  stop(): Promise<string[]>;
}

/**
 * The real watchdog, installed by `deploy setup`, ticking every second inside
 * every host — what cron does, only faster. Bounded: each loop is killed after
 * `timeoutMs` at the latest.
 */
export function startWatchdogs(
  hosts: readonly LabHost[],
  options: {
    service?: string;
    timeoutMs?: number;
    /** seconds between ticks; default 1 */
    loopSeconds?: number;
    /** what a host's cron would give the tick (compose mode: DOCKER_HOST, compose.ts) */
    env?: (host: LabHost) => Record<string, string>;
  } = {},
): Watchdogs {
  const service = options.service ?? 'lab';
  const procs: ResultPromise[] = hosts.map((h) => {
    const argv = [
      '/opt/handoff/bin/deploy',
      'watchdog',
      '--loop',
      String(options.loopSeconds ?? 1),
      '-c',
      `/etc/handoff/${service}.json`,
    ];
    const [cmd, ...args] = nsenterArgv(h, argv);
    return execa(cmd as string, args, {
      reject: false,
      all: true,
      timeout: options.timeoutMs ?? 900_000,
      ...(options.env ? { env: { ...process.env, ...options.env(h) } } : {}),
    });
  });
  return {
    stop: async () => {
      for (const p of procs) p.kill('SIGTERM');
      const results = await Promise.all(procs);
      return results.map((r) => String(r.all ?? ''));
    },
  };
}

/** A host's `audit.jsonl`, a line each (none yet: no lines). */
export async function auditLines(lab: Lab, host: LabHost): Promise<string[]> {
  const audit = await lab.inHost(host, [
    'sh',
    '-c',
    `cat ${lab.layout.paths.root}/audit.jsonl 2>/dev/null || true`,
  ]);
  return audit.stdout.split('\n').filter((l) => l !== '');
}

/** The watchdog's actions are restarts: its own log lines, and its audit lines on the host. */
export async function watchdogActions(lab: Lab, outputs: readonly string[]): Promise<string[]> {
  const actions = outputs.flatMap((o) => o.split('\n').filter((l) => /restart|gave up/.test(l)));
  for (const h of lab.hosts)
    actions.push(...(await auditLines(lab, h)).filter((l) => l.includes('watchdog.')));
  return actions;
}
