import { describe, expect, it } from 'vitest';
import { rolloutFailure } from '../../../src/cli/rollout/deploy-hooks.js';
import { BlockedError } from '../../../src/errors.js';
import type { HostConfig } from '../../../src/config/types.js';
import { capacityStep } from '../../../src/rollout/handshake/capacity-step.js';
import { plannedDrain } from '../../../src/rollout/handshake/planned-drain.js';
import {
  hostContext,
  type HostGuard,
  type StepVerdict,
} from '../../../src/rollout/handshake/step.js';
import { WaveRead } from '../../../src/rollout/handshake/wave-read.js';
import { StepRecorder } from '../../../src/rollout/recorder.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import type { RolloutOptions } from '../../../src/rollout/types.js';
import { testConfig } from '../../support/config.js';
import { fleet, refusal } from '../../support/rollout-fleet.js';

const options: RolloutOptions = { release: 'r2', dryRun: false, rollback: true };
const HOUR = 60 * 60_000;
const OPERATOR = 'deploy drain by alice@laptop';

/** three hosts; `minHealthy` other targets must stay in rotation */
function guarded(minHealthy: number) {
  const base = testConfig();
  return fleet({ ...base, rollout: { ...base.rollout, minHealthy } });
}

describe('the capacity guard again with each host lock held', () => {
  it('refuses a host when another one was drained after preflight, though the balancer still has it in', async () => {
    const f = guarded(2);
    f.host(1).onCall = (op) => {
      // an operator's drain lands between preflight and web-1's lock
      if (op === 'lock') void f.host(2).run('drain', { by: OPERATOR, leaseMs: HOUR });
    };
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(false);
    expect(result.hosts[0]).toMatchObject({
      host: 'web-1',
      result: 'failed',
      stoppedAt: 'capacity',
      leftDrained: false,
      blocked: true,
    });
    // the balancer had not seen the drain yet: only web-2's own word counted it out
    expect((await f.balancer.states(['web-2'])).get('web-2')?.inRotation).toBe(true);
    expect(result.hosts[0]?.error).toBe(
      `web-1: capacity guard with its lock held: counted out: web-2 (drained by ${OPERATOR} until 2026-01-01T01:00:00.000Z); only 1 other target(s) in rotation, min_healthy is 2: draining web-1 would leave too few; nothing was drained on it`,
    );
    // nothing changed on web-1: locked, checked, unlocked
    expect(f.actions(1)).toEqual(['lock', 'unlock']);
    expect(f.host(1).drained).toBe(false);
    expect(result.notReached).toEqual(['web-2', 'web-3']);
    expect(rolloutFailure(result, 'stopped').exitCode).toBe(3);
  });

  it('counts a host locked by another holder out, but not one a watchdog tick holds', async () => {
    const locked = guarded(2);
    locked.host(3).locked = true;
    locked.host(3).holderWhat = 'deploy lock exec';
    const r = await rollout(locked.deps, { ...options, hosts: ['web-1'] });
    expect(r.hosts[0]).toMatchObject({ stoppedAt: 'capacity', blocked: true });
    expect(r.hosts[0]?.error).toContain('counted out: web-3 (lock held by deploy lock exec)');
    expect(locked.actions(1)).toEqual(['lock', 'unlock']);

    const ticking = guarded(2);
    ticking.host(3).locked = true;
    ticking.host(3).holderWhat = 'watchdog';
    const ok = await rollout(ticking.deps, { ...options, hosts: ['web-1'] });
    expect(ok.ok).toBe(true);
    const capacity = ok.hosts[0]?.steps.find((s) => s.step === 'capacity');
    expect(capacity?.detail).toBe('2 other target(s) in rotation, min_healthy 2');
  });

  it('counts a host whose status cannot be read out, naming why', async () => {
    const f = guarded(2);
    f.host(1).onCall = (op) => {
      if (op === 'lock')
        f.host(3).answers.status = () => Promise.reject(new Error('connection reset'));
    };
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]?.error).toContain(
      'counted out: web-3 (status not read: connection reset)',
    );
    expect(f.actions(1)).toEqual(['lock', 'unlock']);
  });
});

/** one host's capacity step in `guard`'s wave, its lock held; `abort` ends its wait as a lost lock does */
function guardRun(f: ReturnType<typeof fleet>, guard: HostGuard) {
  return (host: HostConfig) => {
    const ctx = hostContext({
      deps: f.deps,
      host,
      agent: f.hosts.get(host.target)!,
      release: 'r2',
      rollback: true,
      bounds: { awaitOut: 0, awaitIn: 0, interval: 0 },
      rec: new StepRecorder(host.name, 'r2', 'ci', f.clock, f.log, 0),
      leaseMs: 0,
      liveBefore: 'r1',
      guard,
    });
    return { done: capacityStep().run(ctx), abort: (e: Error) => ctx.abort(e) };
  };
}

/** every pending callback and timer-free continuation has run */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the cost of the guard', () => {
  it('the hosts of a wave share one read, begun once every one of them holds its lock', async () => {
    const f = fleet(testConfig({}, 4));
    const [web1, web2] = f.deps.config.hosts;
    const wave = [web1!, web2!];
    const guard = { wave, failOpen: new Map(), shared: new WaveRead(wave) };
    const run = guardRun(f, guard);
    const reads = () => f.host(3).calls.filter((c) => c === 'status').length;
    const first = run(web1!);
    await settled();
    // web-2 has no lock yet: a read begun now would be before it
    expect(reads()).toBe(0);
    await Promise.all([first.done, run(web2!).done]);
    expect(reads()).toBe(1);
    // a host that comes after that read began may have locked after it: a fresh read
    await run(web2!).done;
    expect(reads()).toBe(2);
  });

  it('does not wait for a host of the wave that failed before its capacity step', async () => {
    const f = fleet(testConfig({}, 4));
    const [web1, web2, web3] = f.deps.config.hosts;
    const wave = [web1!, web2!, web3!];
    const guard = { wave, failOpen: new Map(), shared: new WaveRead(wave) };
    const run = guardRun(f, guard);
    const reads = () => f.host(4).calls.filter((c) => c === 'status').length;
    const came = [run(web1!).done, run(web2!).done];
    await settled();
    expect(reads()).toBe(0);
    guard.shared.leave('web-3');
    await Promise.all(came);
    expect(reads()).toBe(1);
  });

  it('a host whose lock is lost while it waits for the wave stops waiting, reading nothing', async () => {
    const f = fleet(testConfig({}, 4));
    const [web1, web2] = f.deps.config.hosts;
    const wave = [web1!, web2!];
    const guard = { wave, failOpen: new Map(), shared: new WaveRead(wave) };
    const waiting = guardRun(f, guard)(web1!);
    waiting.abort(new Error('web-1: the connection holding the host lock dropped'));
    expect((await refusal(waiting.done)).message).toBe(
      'web-1: the connection holding the host lock dropped',
    );
    expect(f.host(3).calls).not.toContain('status');
  });

  it('a wave whose host is refused its lock deploys the others, each other host read once a wave', async () => {
    const config = testConfig(
      { rollout: { ...testConfig().rollout, batch: { kind: 'count', count: 2 }, minHealthy: 1 } },
      4,
    );
    const f = fleet(config);
    f.host(2).failOn.set('lock', new Error('the host lock is held by deploy lock exec'));
    const said: string[] = [];
    for (const n of [1, 2, 3, 4]) f.host(n).onCall = (op) => said.push(`web-${n} ${op}`);
    const result = await rollout(f.deps, options);
    expect(result.hosts.map((h) => [h.host, h.result, h.stoppedAt])).toEqual([
      ['web-1', 'deployed', undefined],
      ['web-2', 'failed', 'lock'],
    ]);
    expect(f.host(1).release).toBe('r2');
    // between web-1's lock and its drain: the guard's one read of web-3 and web-4
    const guarding = said.slice(said.indexOf('web-1 lock'), said.indexOf('web-1 drain'));
    expect(guarding.filter((c) => c.endsWith(' status')).sort()).toEqual([
      'web-3 status',
      'web-4 status',
    ]);
  });
});

describe('how many of the others the guard asks', () => {
  /** twelve hosts, min_healthy 1: web-1's guard, alone in its wave */
  function twelve() {
    const base = testConfig({}, 12);
    const f = fleet({ ...base, rollout: { ...base.rollout, minHealthy: 1 } });
    const [web1] = f.deps.config.hosts;
    const run = async () =>
      (await guardRun(f, { wave: [web1!], failOpen: new Map() })(web1!).done) as StepVerdict;
    const asked = () =>
      [...Array(12).keys()]
        .map((i) => `web-${i + 1}`)
        .filter((name) => f.hosts.get(name)!.calls.includes('status'));
    return { f, run, asked };
  }

  it('asks min_healthy and a few more when those serve, the rest counted as not serving', async () => {
    const t = twelve();
    const verdict = await t.run();
    expect(verdict.detail).toBe(
      '2 other host(s) not asked, enough of those asked serve; 9 other target(s) in rotation, min_healthy 1',
    );
    expect(t.asked()).toEqual([
      'web-2',
      'web-3',
      'web-4',
      'web-5',
      'web-6',
      'web-7',
      'web-8',
      'web-9',
      'web-10',
    ]);
  });

  it('asks the rest when too few of the first serve by their own word', async () => {
    const t = twelve();
    for (let n = 2; n <= 10; n++) void t.f.host(n).run('drain', { by: OPERATOR, leaseMs: HOUR });
    const verdict = await t.run();
    expect(t.asked()).toHaveLength(11);
    // web-11 and web-12 serve: counted on, as read after the lock
    expect(verdict.detail).toMatch(/; 2 other target\(s\) in rotation, min_healthy 1$/);
    expect(verdict.detail).not.toContain('not asked');
  });

  it('refuses when even all of them fall short, naming every host counted out', async () => {
    const t = twelve();
    for (let n = 2; n <= 12; n++) void t.f.host(n).run('drain', { by: OPERATOR, leaseMs: HOUR });
    const verdict = await t.run();
    expect(verdict.ok).toBe(false);
    expect(verdict.detail).toContain('web-12 (drained by');
    expect(verdict.detail).toContain('only 0 other target(s) in rotation');
  });
});

describe('deploy drain under the capacity guard', () => {
  const web1 = () => testConfig().hosts[0]!;

  it('refuses, exit 3, when the others are drained or locked; nothing drained, lock released', async () => {
    const f = fleet();
    void f.host(2).run('drain', { by: OPERATOR, leaseMs: HOUR });
    f.host(3).locked = true;
    f.host(3).holderWhat = 'rollout';
    const error = await refusal(
      plannedDrain(f.deps, web1(), f.host(1), { drain: true, leaseMs: HOUR, wait: true }),
    );
    expect(error).toBeInstanceOf(BlockedError);
    expect((error as BlockedError).exitCode).toBe(3);
    expect(error.message).toBe(
      `web-1: capacity guard with its lock held: counted out: web-2 (drained by ${OPERATOR} until 2026-01-01T01:00:00.000Z), web-3 (lock held by rollout); only 0 other target(s) in rotation, min_healthy is 1: draining web-1 would leave too few; nothing was drained on it`,
    );
    expect(f.host(1).calls.filter((c) => c !== 'status')).toEqual(['lock', 'unlock']);
    expect(f.host(1).drained).toBe(false);
    // the refusal is in web-1's audit too
    expect(f.host(1).audit.map((a) => [a.step, a.result])).toEqual([['capacity', 'failed']]);
  });

  it('with --force drains anyway, says the guard was overridden and what it said, and audits it', async () => {
    const f = fleet();
    void f.host(2).run('drain', { by: OPERATOR, leaseMs: HOUR });
    void f.host(3).run('drain', { by: OPERATOR, leaseMs: HOUR });
    const r = await plannedDrain({ ...f.deps, who: 'deploy drain by bob@ops' }, web1(), f.host(1), {
      drain: true,
      leaseMs: HOUR,
      wait: false,
      force: true,
    });
    expect(r.drained).toBe(true);
    expect(f.host(1).drained).toBe(true);
    const said = f.log.events.find((e) => e.event === 'capacity' && e.level === 'warn');
    expect(said).toMatchObject({ host: 'web-1' });
    expect(said?.message).toMatch(
      /^capacity guard overridden \(--force\): counted out: web-2 \(drained by .*\), web-3 \(drained by .*\); only 0 other target\(s\) in rotation, min_healthy is 1: draining web-1 would leave too few$/,
    );
    const audit = f.host(1).audit;
    expect(audit.map((a) => a.step)).toEqual(['capacity', 'drain']);
    expect(audit[0]).toMatchObject({ result: 'ok', who: 'deploy drain by bob@ops', release: '-' });
    expect(audit[0]?.detail).toMatch(/^overridden \(--force\): counted out: web-2/);
  });

  it('drains without a word when the others serve', async () => {
    const f = fleet();
    await plannedDrain(f.deps, web1(), f.host(1), { drain: true, leaseMs: HOUR, wait: false });
    expect(f.host(1).drained).toBe(true);
    expect(f.log.events.some((e) => e.event === 'capacity')).toBe(false);
  });
});

/** Roll out over a fleet whose web-2 carries a marker: web-2 is repaired first; what it said. */
async function repairedWeb2(f: ReturnType<typeof fleet>) {
  f.host(2).calls = [];
  const result = await rollout(f.deps, options);
  expect(result.ok).toBe(true);
  // verified and undrained under its lock, before the rollout's first wave
  expect(f.host(2).calls.slice(1, 6)).toEqual(['status', 'lock', 'verify', 'undrain', 'unlock']);
  return f.log.events.find((e) => e.event === 'repair' && e.host === 'web-2');
}

describe('a drain an operator made, as the next rollout finds it', () => {
  it('is left alone while its lease runs: a plan that has the host is refused, exit 3, nothing touched', async () => {
    const f = fleet();
    void f.host(2).run('drain', { by: OPERATOR, leaseMs: HOUR });
    f.host(2).calls = [];
    const error = await refusal(rollout(f.deps, options));
    expect(error).toBeInstanceOf(BlockedError);
    expect(error.message).toBe(
      `preflight: web-2 drained by ${OPERATOR} until 2026-01-01T01:00:00.000Z: left alone; 'deploy undrain web-2' when the work is done, or leave it out with --hosts`,
    );
    for (const n of [1, 2, 3]) expect(f.actions(n)).toEqual([]);
    expect(f.host(2).drained).toBe(true);
  });

  it('left out with --hosts, stays drained, is not repaired, and counts against capacity', async () => {
    const f = guarded(1);
    void f.host(2).run('drain', { by: OPERATOR, leaseMs: HOUR });
    f.host(2).calls = [];
    const result = await rollout(f.deps, { ...options, hosts: ['web-1', 'web-3'] });
    expect(result.ok).toBe(true);
    expect(f.actions(2)).toEqual([]);
    expect(f.host(2).drained).toBe(true);
    expect(f.host(2).marker.by).toBe(OPERATOR);
    const capacity = result.hosts[0]?.steps.find((s) => s.step === 'capacity');
    expect(capacity?.detail).toBe(
      `counted out: web-2 (drained by ${OPERATOR} until 2026-01-01T01:00:00.000Z); 1 other target(s) in rotation, min_healthy 1`,
    );
  });

  it('is a leftover once its lease is over: repaired like a rollout’s, saying whose it was', async () => {
    const f = fleet();
    void f.host(2).run('drain', { by: OPERATOR, leaseMs: HOUR });
    f.clock.advance(HOUR);
    f.host(2).calls = [];
    const repair = await repairedWeb2(f);
    expect(repair?.message).toBe(
      `leftover drain marker of an operator (${OPERATOR}) since 2026-01-01T00:00:00.000Z, its lease over since 2026-01-01T01:00:00.000Z, running r1: repairing`,
    );
  });

  it('a rollout’s marker with its lease still running and nobody holding the lock is repaired', async () => {
    const f = fleet();
    void f.host(2).run('drain', { by: 'ci@runner', leaseMs: HOUR, release: 'r2' });
    f.host(2).calls = [];
    const repair = await repairedWeb2(f);
    expect(repair?.message).toMatch(
      /^leftover drain marker of a rollout by ci@runner .*\(release r2\)/,
    );
  });
});
