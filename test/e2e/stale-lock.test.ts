import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatReport,
  nsenterArgv,
  pidsInNamespace,
  startLoad,
  type LabHost,
} from '../../scripts/lab/index.js';
import { commandLineOf } from '../../scripts/lab/procs.js';
import { HOST_LOCK_OPTIONS } from '../../src/host/lock.js';
import { HEARTBEAT } from '../../src/protocol/ops.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';
import { sampleRotation } from './rotation-sampler.js';
import { hostOnDisk, until, watchRollout } from './watch-rollout.js';
import { startWatchdogs } from './watchdogs.js';

let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({ hosts: 3, subnet: '127.0.97', workDir: '/tmp/handoff-e2e-97' });
});
afterAll(async () => {
  await fleet?.stop();
});

const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));

/** The host's processes whose command line says `words` (a lab host's /proc is the machine's). */
function processesOf(host: LabHost, words: string): number[] {
  return pidsInNamespace(host.mountNamespace).filter((pid) => commandLineOf(pid).includes(words));
}

/** The host lock's directory mtime, or `free`: it changes when anyone else takes the lock. */
async function lockStamp(host: LabHost): Promise<string> {
  const r = await fleet.lab.inHost(host, [
    'sh',
    '-c',
    'stat -c %y /var/lock/handoff/lab.lock 2>/dev/null || echo free',
  ]);
  return r.stdout.trim();
}

/** Who holds the host lock, as the host's holder file says (`lock exec`, `rollout`, `watchdog`). */
async function lockHolder(host: LabHost): Promise<string | undefined> {
  const r = await fleet.lab.inHost(host, [
    'sh',
    '-c',
    'test -e /var/lock/handoff/lab.lock && cat /var/lock/handoff/lab.holder.json; true',
  ]);
  const text = r.stdout.trim();
  return text ? (JSON.parse(text) as { what?: string }).what : undefined;
}

const signal = (pids: readonly number[], sig: NodeJS.Signals): void => {
  for (const pid of pids) process.kill(pid, sig);
};

describe('a lock-holding agent frozen past the stale bound mid-handshake, its SSH connection up', () => {
  it('loses the lock; the rollout takes it again over the same connection and rolls web-1 back, never drained, exit 1, 0 failed requests', async () => {
    // resumed within the agent's heartbeat silence (and a margin): only the lock's staleness ends its hold
    const resumeWithinMs = HEARTBEAT.silenceMs - 2_000;
    expect(HOST_LOCK_OPTIONS.stale).toBeLessThan(resumeWithinMs);
    await fleet.stageEverywhere('r2');
    const web1 = fleet.lab.host('web-1');
    const watchdogs = startWatchdogs(fleet.lab.hosts);
    const load = startLoad({ url: fleet.lab.url, concurrency: 6 });
    const rotation = sampleRotation(fleet.lab);
    const run = watchRollout(fleet, 'r2');
    let frozen: number[] = [];
    let taken = '';
    let frozenMs = 0;
    try {
      await run.stepStarted('web-1', 'overlap');
      frozen = processesOf(web1, 'lock-hold');
      expect(frozen.length, 'no lock-hold agent on web-1').toBeGreaterThan(0);
      signal(frozen, 'SIGSTOP');
      const at = Date.now();
      const ours = await lockStamp(web1);
      // its mtime no longer refreshed, the lock goes stale within the bound and a watchdog tick takes it
      taken = await until(
        () => lockStamp(web1),
        (s) => s !== ours,
        resumeWithinMs,
      );
      frozenMs = Date.now() - at;
      expect(taken, `web-1's lock was never taken over while its holder was frozen`).not.toBe(ours);
    } finally {
      signal(frozen, 'SIGCONT');
    }
    const r = await run.proc;
    const report = await load.stop();
    const seen = await rotation.stop();
    await watchdogs.stop();
    const log = `${String(r.stderr)}\n${String(r.stdout)}`;
    console.log(
      `agent frozen ${frozenMs} ms until its lock was taken; at most ${seen.maxOut} host(s) out of rotation at once (${seen.samples} reads); ${formatReport(report)}`,
    );
    expect(r.exitCode, log).toBe(1);
    const said = run.events.filter(
      (e) => e.event === 'recover' && e.host === 'web-1' && e.level === 'error',
    );
    expect(said.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^lost the host lock to staleness during \S+ \(the agent: .+\); took it again over the same connection to roll the host back$/,
      ),
    ]);
    const result = run.events.find((e) => e.event === 'result');
    expect(result?.ok).toBe(false);
    expect(result?.hosts?.[0]).toMatchObject({ host: 'web-1', left_drained: false });
    expect(result?.hosts?.[0]?.error).toMatch(
      /lost the host lock to staleness .*took it again over the same connection, rolled back/,
    );
    expect(await hostOnDisk(fleet, 'web-1')).toEqual({
      drained: false,
      locked: false,
      release: 'r1',
    });
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);
    expect(report.failed, formatReport(report)).toBe(0);
    expect(seen.maxOut, JSON.stringify(seen)).toBe(1);
  }, 180_000);
});

describe('frozen holders: SIGTSTP is refused while the host lock is held', () => {
  it('`deploy lock exec` keeps running and holding the lock past its stale bound; the command completes and the lock is released after', async () => {
    const web2 = fleet.lab.host('web-2');
    const flag = '/run/handoff/lab/e2e-tstp';
    const watchdogs = startWatchdogs([web2]);
    const script = `touch ${flag}.started; while [ ! -e ${flag}.go ]; do sleep 0.05; done; echo finished`;
    const [cmd, ...args] = nsenterArgv(web2, [
      '/opt/handoff/bin/deploy',
      'lock',
      'exec',
      '-c',
      '/etc/handoff/lab.json',
      '-m',
      'e2e tstp',
      '--',
      'sh',
      '-c',
      script,
    ]);
    const exec = execa(cmd as string, args, { reject: false, timeout: 120_000 });
    let stderr = '';
    exec.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const started = await until(
        () => fleet.lab.inHost(web2, ['test', '-e', `${flag}.started`]),
        (x) => x.exitCode === 0,
        30_000,
      );
      expect(started.exitCode, stderr).toBe(0);
      const [holder, ...more] = processesOf(web2, 'lock exec');
      expect(more, 'one deploy lock exec on web-2').toEqual([]);
      process.kill(holder!, 'SIGTSTP');
      await until(
        () => Promise.resolve(stderr),
        (s) => s.includes('SIGTSTP'),
        10_000,
      );
      expect(stderr).toContain(
        'deploy: SIGTSTP: not stopping while holding the host lock (it would go stale under the command)',
      );
      // a stopped holder would lose the lock to the watchdog within the stale bound: wait that long on purpose
      await new Promise((r) => setTimeout(r, HOST_LOCK_OPTIONS.stale + HOST_LOCK_OPTIONS.update));
      expect(processState(holder!), 'deploy lock exec was stopped').not.toBe('T');
      expect(await lockHolder(web2)).toBe('lock exec');
      await fleet.lab.inHost(web2, ['touch', `${flag}.go`]);
      const r = await exec;
      expect(r.exitCode, stderr).toBe(0);
      expect(String(r.stdout)).toContain('finished');
      expect(await lockHolder(web2)).toBeUndefined();
      expect((await hostOnDisk(fleet, 'web-2')).locked).toBe(false);
    } finally {
      exec.kill('SIGKILL');
      await watchdogs.stop();
      await fleet.lab.inHost(web2, ['rm', '-f', `${flag}.started`, `${flag}.go`]);
    }
  }, 120_000);

  it('a rollout sent SIGTSTP mid-handshake says it will not stop, keeps going and deploys every host, 0 failed requests', async () => {
    await fleet.stageEverywhere('r3');
    const load = startLoad({ url: fleet.lab.url, concurrency: 6 });
    const rotation = sampleRotation(fleet.lab);
    const run = watchRollout(fleet, 'r3');
    await run.stepStarted('web-1', 'overlap');
    process.kill(run.proc.pid!, 'SIGTSTP');
    const r = await run.proc;
    const report = await load.stop();
    const seen = await rotation.stop();
    expect(r.exitCode, `${String(r.stderr)}\n${String(r.stdout)}`).toBe(0);
    expect(run.events.filter((e) => e.event === 'interrupt').map((e) => e.message)).toEqual([
      expect.stringMatching(/^SIGTSTP: not stopping while hosts are locked or drained/),
    ]);
    expect(run.events.find((e) => e.event === 'result')?.ok).toBe(true);
    expect(await releases()).toEqual(['r3', 'r3', 'r3']);
    expect(report.failed, formatReport(report)).toBe(0);
    expect(seen.maxOut, JSON.stringify(seen)).toBe(1);
  }, 180_000);
});

/** `R`, `S`, `T` (stopped)…: the field after the command in /proc/PID/stat (a lab host's /proc is ours). */
function processState(pid: number): string | undefined {
  return /\) (\S) /.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
}
