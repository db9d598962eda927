import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, pidsInNamespace, startLoad } from '../../scripts/lab/index.js';
import { startFleet, type Fleet } from './fleet-harness.js';
import { pinBundle, type Pinned } from './pinned-bundle.js';
import { until } from './watch-rollout.js';

let fleet: Fleet;
let pinned: Pinned;
beforeAll(async () => {
  fleet = await startFleet({ hosts: 3, subnet: '127.0.14', workDir: '/tmp/handoff-e2e-14' });
  pinned = await pinBundle(fleet);
});
afterAll(async () => {
  await fleet?.stop();
});

interface Event {
  readonly event?: string;
  readonly level?: string;
  readonly host?: string;
  readonly message?: string;
  readonly fields?: { step?: string; ok?: boolean };
  readonly ok?: boolean;
  readonly hosts?: {
    host: string;
    result?: string;
    left_drained?: boolean;
    error?: string;
  }[];
}

interface HostState {
  readonly host: string;
  readonly release: string | undefined;
  readonly locked: boolean;
  readonly draining: boolean;
}

const parse = (stdout: string): Event[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Event);

/** `deploy rollout --json`, with its NDJSON events readable while it runs. */
function watchRollout(release: string) {
  const proc = pinned.spawnDeploy(['rollout', '--release', release, '--json']);
  const events: Event[] = [];
  let buffered = '';
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  proc.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    events.push(...parse(lines.join('\n')));
  });
  const waitFor = async (wanted: (e: Event) => boolean, timeoutMs = 60_000): Promise<Event> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = events.find(wanted);
      if (found) return found;
      if (Date.now() > deadline || proc.exitCode !== null)
        throw new Error(
          `no such event within ${timeoutMs} ms (exit ${proc.exitCode ?? '-'}); stderr: ${stderr}; saw:\n${events.map((e) => JSON.stringify(e)).join('\n')}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  // process.kill, not proc.kill: execa would follow up with SIGKILL after 5 s, mid-recovery
  const interrupt = (): void => {
    if (proc.pid !== undefined) process.kill(proc.pid, 'SIGTERM');
  };
  return { proc, events, waitFor, interrupt };
}

const stepStarted = (host: string, step: string) => (e: Event) =>
  e.event === 'step.start' && e.host === host && e.fields?.step === step;

async function hostStates(): Promise<HostState[]> {
  const r = await pinned.deploy(['status', '--json']);
  const result = parse(r.stdout).find((e) => e.event === 'result') as unknown as
    | {
        hosts: {
          host: string;
          status?: { release?: string; lock: { locked: boolean }; draining: unknown };
        }[];
      }
    | undefined;
  if (!result) throw new Error(`deploy status gave no result (${r.code}): ${r.stderr}`);
  return result.hosts.map((h) => ({
    host: h.host,
    release: h.status?.release,
    locked: h.status?.lock.locked ?? true,
    draining: Boolean(h.status?.draining),
  }));
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return ''; // exited since it was listed
  }
}

const settled = (states: readonly HostState[]) => states.every((s) => !s.locked && !s.draining);

describe('a rollout interrupted by SIGTERM', () => {
  it('during await-out exits 1, undrains web-1, unlocks every host, and the next rollout completes with zero failed requests', async () => {
    await fleet.stageEverywhere('r2');
    const load = startLoad({ url: fleet.lab.url, concurrency: 6 });
    const run = watchRollout('r2');
    await run.waitFor(stepStarted('web-1', 'await-out'));
    run.interrupt();
    const r = await run.proc;
    expect(r.exitCode, `${r.signal ?? ''} ${String(r.stderr)}`).toBe(1);
    const result = run.events.find((e) => e.event === 'result');
    expect(result?.hosts?.[0]).toMatchObject({
      host: 'web-1',
      result: 'interrupted',
      left_drained: false,
    });
    expect(String(r.stderr)).toContain(
      'deploy: rollout of r2 interrupted on web-1 at await-out; web-2, web-3 not reached',
    );
    expect(run.events.some((e) => e.event === 'interrupt')).toBe(true);
    const states = await hostStates();
    expect(states).toEqual([
      { host: 'web-1', release: 'r1', locked: false, draining: false },
      { host: 'web-2', release: 'r1', locked: false, draining: false },
      { host: 'web-3', release: 'r1', locked: false, draining: false },
    ]);

    const next = await pinned.deploy(['rollout', '--release', 'r2']);
    const report = await load.stop();
    expect(next.code, `${next.stderr}\n${next.stdout}`).toBe(0);
    expect(report.failed, formatReport(report)).toBe(0);
    expect((await hostStates()).map((s) => s.release)).toEqual(['r2', 'r2', 'r2']);
  });

  it('during verify exits 1, rolls web-1 back, unlocks every host, and the next rollout completes with zero failed requests', async () => {
    const before = (await hostStates()).map((h) => h.release);
    // a warm-up of 4 s keeps web-1 in verify long enough for the signal to land there
    await fleet.stageEverywhere('r3', { readyAfterMs: 4000 });
    const load = startLoad({ url: fleet.lab.url, concurrency: 6 });
    const run = watchRollout('r3');
    await run.waitFor(stepStarted('web-1', 'verify'));
    run.interrupt();
    const r = await run.proc;
    expect(r.exitCode, `${r.signal ?? ''} ${String(r.stderr)}`).toBe(1);
    const result = run.events.find((e) => e.event === 'result');
    expect(result?.hosts?.[0]).toMatchObject({
      host: 'web-1',
      result: 'interrupted',
      left_drained: false,
    });
    expect(String(r.stderr)).toContain('deploy: rollout of r3 interrupted on web-1 at verify');
    expect(run.events.map((e) => e.message)).toContain(
      `rolled back to ${before[0] ?? '?'}: healthy and back in rotation`,
    );
    const states = await hostStates();
    expect(settled(states), JSON.stringify(states)).toBe(true);
    expect(states.map((h) => h.release)).toEqual(before);

    const next = await pinned.deploy(['rollout', '--release', 'r3']);
    const report = await load.stop();
    expect(next.code, `${next.stderr}\n${next.stdout}`).toBe(0);
    expect(report.failed, formatReport(report)).toBe(0);
    expect((await hostStates()).map((s) => s.release)).toEqual(['r3', 'r3', 'r3']);
  });
});

describe('a rollout whose SSH connection is cut', () => {
  it('fails naming the host, the agent releases the remote lock, and the next rollout completes with zero failed requests', async () => {
    const before = (await hostStates()).map((h) => h.release);
    await fleet.stageEverywhere('r4');
    const load = startLoad({ url: fleet.lab.url, concurrency: 6 });
    const run = watchRollout('r4');
    await run.waitFor(stepStarted('web-1', 'await-out'));
    // web-1's sshd forks one monitor per connection: killing them cuts the orchestrator's session
    const web1 = fleet.lab.host('web-1');
    const cut = await execa('pkill', ['-KILL', '-P', String(web1.pid)], { reject: false });
    expect(cut.exitCode, 'no SSH session of web-1 to cut').toBe(0);
    const r = await run.proc;
    expect(r.exitCode, String(r.stderr)).toBe(1);
    expect(String(r.stderr)).toContain('web-1');
    const result = run.events.find((e) => e.event === 'result');
    expect(result?.hosts?.[0]?.error).toMatch(/web-1: .*connection.*dropped/);
    expect(result?.hosts).toHaveLength(1);
    // drained when the connection went: it stays so, and says so, until the next rollout repairs it
    expect(result?.hosts?.[0]?.left_drained).toBe(true);
    const said = run.events.filter(
      (e) => e.event === 'recover' && e.host === 'web-1' && e.level === 'error',
    );
    expect(said.map((e) => e.message)).toEqual([expect.stringContaining('left DRAINED')]);
    // released by the agent, not merely gone stale: a stale lock keeps its directory
    const lockDir = await until(
      () => fleet.lab.inHost(web1, ['sh', '-c', 'ls -d /var/lock/handoff/lab.lock || true']),
      (x) => x.stdout.trim() === '',
      10_000,
    );
    expect(lockDir.stdout.trim(), 'web-1 lock directory still there').toBe('');
    // /proc is the machine's: only web-1's mount namespace says a process is web-1's
    const holders = pidsInNamespace(web1.mountNamespace)
      .map((pid) => cmdline(pid))
      .filter((cmd) => cmd.includes('lock-hold'));
    expect(holders).toEqual([]);
    // the agent notices stdin close on its own; it needs no orchestrator to unlock
    const states = await until(hostStates, (s) => s.every((h) => !h.locked), 15_000);
    expect(states.map((s) => s.locked)).toEqual([false, false, false]);
    expect(states.map((s) => s.release)).toEqual(before);

    const next = await pinned.deploy(['rollout', '--release', 'r4']);
    const report = await load.stop();
    expect(next.code, `${next.stderr}\n${next.stdout}`).toBe(0);
    expect(report.failed, formatReport(report)).toBe(0);
    const after = await hostStates();
    expect(settled(after), `${JSON.stringify(after)}\n${next.stderr}\n${next.stdout}`).toBe(true);
    expect(after.map((s) => s.release)).toEqual(['r4', 'r4', 'r4']);
  });
});
