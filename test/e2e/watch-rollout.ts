import { followDeploy } from './deploy-run.js';
import type { Fleet } from './fleet-harness.js';

/** A line of `deploy rollout --json`: what the e2e tests read of it. */
export interface RolloutEvent {
  readonly event?: string;
  readonly level?: string;
  readonly host?: string;
  readonly message?: string;
  readonly fields?: { step?: string };
  readonly ok?: boolean;
  readonly hosts?: readonly {
    host: string;
    result?: string;
    left_drained?: boolean;
    error?: string;
  }[];
}

/** `deploy rollout --json`, its events readable while it runs. */
export function watchRollout(fleet: Fleet, release: string) {
  const proc = fleet.spawnDeploy(['rollout', '--release', release, '--json']);
  const { events } = followDeploy<RolloutEvent>(proc);
  const stepStarted = async (host: string, step: string): Promise<void> => {
    const deadline = Date.now() + 60_000;
    while (
      !events.some((e) => e.event === 'step.start' && e.host === host && e.fields?.step === step)
    ) {
      if (Date.now() > deadline || proc.exitCode !== null)
        throw new Error(`${host} never started ${step} (exit ${proc.exitCode ?? '-'})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { proc, events, stepStarted };
}

/** What a host holds on disk: its drain marker, its lock, its live release. */
export interface HostOnDisk {
  readonly drained: boolean;
  readonly locked: boolean;
  readonly release: string;
}

/** Read inside the host (no SSH, no agent): what a frozen or dead deploy left there. */
export async function hostOnDisk(fleet: Fleet, name: string): Promise<HostOnDisk> {
  const r = await fleet.lab.inHost(fleet.lab.host(name), [
    'sh',
    '-c',
    'readlink /srv/handoff/lab/current; test -e /run/handoff/lab/draining && echo drained; test -e /var/lock/handoff/lab.lock && echo locked; true',
  ]);
  const lines = r.stdout.trim().split('\n');
  return {
    release: (lines[0] ?? '').replace(/^releases\//, ''),
    drained: lines.includes('drained'),
    locked: lines.includes('locked'),
  };
}

/** Read until `ok` holds or `ms` passed; the last value read either way. */
export async function until<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  ms: number,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}
