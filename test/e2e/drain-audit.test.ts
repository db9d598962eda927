import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from './fleet-harness.js';
import { startWatchdogs, watchdogActions } from './watchdogs.js';

let fleet: Fleet;
beforeAll(async () => {
  // the harness rolls r1 out first: the audit's first rollout
  fleet = await startFleet({ hosts: 2, subnet: '127.0.42', workDir: '/tmp/handoff-e2e-42' });
}, 300_000);
afterAll(async () => {
  await fleet?.stop();
});

/** The last line of a `--json` run: the result. */
function resultOf(stdout: string): Record<string, unknown> {
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(last) as Record<string, unknown>;
}

describe('deploy drain / undrain', () => {
  it('drain returns once HAProxy has the server down, undrain once it is up again', async () => {
    expect(await fleet.lab.serverStatus('web-1')).toBe('UP');
    const drained = await fleet.deploy(['drain', 'web-1']);
    expect(drained.code, drained.stderr).toBe(0);
    // read through the lab's own socket, not through deploy: out when drain returned
    expect(await fleet.lab.serverStatus('web-1')).toMatch(/^DOWN/);
    expect(drained.stdout).toContain('web-1: drained');
    expect(drained.stdout).toContain('safe to work on');

    const undrained = await fleet.deploy(['undrain', 'web-1']);
    expect(undrained.code, undrained.stderr).toBe(0);
    expect(await fleet.lab.serverStatus('web-1')).toBe('UP');
    expect(undrained.stdout).toContain('back in rotation');
  }, 120_000);

  it("counts a host 'deploy drain' took out as not serving while HAProxy still has it in: a rollout and a drain are refused, --force overrides and is audited", async () => {
    await fleet.stageEverywhere('r2');
    const server = `${fleet.lab.backend}/web-2`;
    // HAProxy keeps web-2 in rotation whatever its health endpoint answers: the window
    // right after a drain (up to interval × fall), held open
    await fleet.lab.haproxy(`disable health ${server}`);
    try {
      const drained = await fleet.deploy(['drain', 'web-2', '--no-wait']);
      expect(drained.code, drained.stderr).toBe(0);

      // min_healthy 1 of 2 hosts: web-1 may go only while web-2 serves
      const rolled = await fleet.deploy([
        'rollout',
        '--release',
        'r2',
        '--hosts',
        'web-1',
        '--json',
      ]);
      expect(rolled.code, rolled.stderr).toBe(3);
      const result = resultOf(rolled.stdout) as {
        hosts: { host: string; stopped_at: string; left_drained: boolean; error: string }[];
      };
      expect(result.hosts[0]).toMatchObject({
        host: 'web-1',
        stopped_at: 'capacity',
        left_drained: false,
      });
      expect(result.hosts[0]?.error).toMatch(
        /^web-1: capacity guard with its lock held: counted out: web-2 \(drained by deploy drain by \S+ until \S+Z\); only 0 other target\(s\) in rotation, min_healthy is 1/,
      );
      expect(await fleet.lab.serverStatus('web-1')).toBe('UP');

      const refused = await fleet.deploy(['drain', 'web-1', '--no-wait']);
      expect(refused.code, refused.stderr).toBe(3);
      const lines = refused.stderr.split('\n').filter((l) => l.startsWith('deploy: '));
      expect(lines, refused.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^deploy: web-1: capacity guard with its lock held: counted out: web-2 \(drained by deploy drain by .*; nothing was drained on it$/,
      );
      expect(await fleet.lab.serverStatus('web-1')).toBe('UP');

      const forced = await fleet.deploy(['drain', 'web-1', '--no-wait', '--force']);
      expect(forced.code, forced.stderr).toBe(0);
      expect(forced.stderr).toMatch(/capacity guard overridden \(--force\): counted out: web-2/);
      const audit = await fleet.deploy(['audit', '--json', '--hosts', 'web-1']);
      const entries = resultOf(audit.stdout).entries as {
        step: string;
        who: string;
        detail?: string;
      }[];
      const override = entries.find(
        (e) => e.step === 'capacity' && e.detail?.startsWith('overridden (--force): '),
      );
      expect(override?.who, audit.stdout).toMatch(/^deploy drain by /);
    } finally {
      await fleet.lab.haproxy(`enable health ${server}`);
      for (const host of ['web-1', 'web-2']) {
        const back = await fleet.deploy(['undrain', host]);
        expect(back.code, back.stderr).toBe(0);
      }
    }
  }, 120_000);

  it('drain of a host deploy.yml does not have says so in one line, exit 2', async () => {
    const r = await fleet.deploy(['drain', 'app-9']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('deploy: unknown host app-9; deploy.yml has web-1, web-2');
  });
});

describe('deploy audit', () => {
  it('shows two rollouts and then a watchdog restart, in order, newest last', async () => {
    await fleet.stageEverywhere('r2');
    const second = await fleet.deploy(['rollout', '--release', 'r2']);
    expect(second.code, second.stderr).toBe(0);

    const web2 = fleet.lab.host('web-2');
    const watchdogs = startWatchdogs([web2]);
    const killed = await fleet.lab.inHost(web2, [
      'sh',
      '-c',
      'kill -9 "$(cat /run/handoff/lab/app.pid)"',
    ]);
    expect(killed.exitCode, killed.stderr).toBe(0);
    await fleet.lab.waitForStatus('web-2', (s) => s.startsWith('DOWN'), 20_000);
    await fleet.lab.waitForStatus('web-2', (s) => s === 'UP', 60_000);
    const outputs = await watchdogs.stop();
    expect((await watchdogActions(fleet.lab, outputs)).join('\n')).toMatch(/restart/);

    const r = await fleet.deploy(['audit', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = resultOf(r.stdout);
    expect(result.ok).toBe(true);
    const entries = result.entries as {
      host: string;
      release: string;
      step: string;
      time: string;
    }[];
    const times = entries.map((e) => Date.parse(e.time));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const firstOf = (p: (e: (typeof entries)[number]) => boolean) => entries.findIndex(p);
    const r1 = firstOf((e) => e.release === 'r1' && e.step === 'switch');
    const r2 = firstOf((e) => e.release === 'r2' && e.step === 'switch');
    const restart = firstOf((e) => e.host === 'web-2' && e.step === 'watchdog.restart app');
    expect(r1).toBeGreaterThanOrEqual(0);
    expect(r2).toBeGreaterThan(r1);
    expect(restart).toBeGreaterThan(r2);
    // both hosts' rollouts are in the one timeline
    expect(new Set(entries.filter((e) => e.release === 'r2').map((e) => e.host))).toEqual(
      new Set(['web-1', 'web-2']),
    );

    const text = await fleet.deploy(['audit']);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^time\s+host\s+who\s+release\s+step\s+result\s+duration$/);
    expect(lines.at(-1)).toMatch(
      /^\S+Z\s+web-2\s+watchdog@\S+\s+r2\s+watchdog\.restart app\s+ok\s+/,
    );

    // --since is filtered on the hosts: only what came after the second rollout's start
    const since = entries[r2]?.time ?? '';
    const later = await fleet.deploy(['audit', '--json', '--since', since]);
    const laterEntries = resultOf(later.stdout).entries as { release: string }[];
    expect(laterEntries.length).toBeGreaterThan(0);
    expect(laterEntries.every((e) => e.release === 'r2')).toBe(true);
  }, 240_000);

  // last: web-2's sshd stays down
  it('names a host it cannot read, still shows the others, and exits 1', async () => {
    process.kill(fleet.lab.host('web-2').pid, 'SIGTERM');
    const r = await fleet.deploy(['audit']);
    expect(r.code).toBe(1);
    // by the host column: a detail may name another host (the capacity guard's)
    expect(r.stdout).toMatch(/^\S+\s+web-1\s/m);
    expect(r.stdout).not.toMatch(/^\S+\s+web-2\s/m);
    const errors = r.stderr.trim().split('\n');
    expect(errors, r.stderr).toHaveLength(1);
    expect(errors[0]).toMatch(/^deploy: web-2: audit not read: \S/);
    expect(errors[0]).not.toMatch(/web-2: web-2/);
  }, 60_000);
});
