import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentError, BlockedError, InvariantError } from '../../../src/errors.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import type { RolloutOptions } from '../../../src/rollout/types.js';
import { testConfig } from '../../support/config.js';
import { fleet } from '../../support/rollout-fleet.js';
import { FakeBalancer, settings } from '../../support/fake-fleet.js';
import { ended, handshake } from '../../support/handshake.js';
import { rolloutFailure } from '../../../src/cli/rollout/deploy-hooks.js';
import { scratchDir } from '../../support/scratch.js';

const HANDSHAKE = handshake('r2');

const options: RolloutOptions = { release: 'r2', dryRun: false, rollback: true };

describe('rollout on a host whose node is too old', () => {
  it('refuses in preflight naming the host and its version, before its agent runs', async () => {
    const f = fleet();
    f.host(2).node = '20.11.0';
    const failure = await rollout(f.deps, options).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BlockedError);
    expect((failure as Error).message).toBe(
      'preflight: web-2: node is 20.11.0, older than 22.12: install Node 22 (22.12 or later) or 24 first on the PATH of ssh.user',
    );
    expect(f.host(2).calls).toEqual(['node']);
    for (const n of [1, 2, 3]) expect(f.actions(n)).toEqual([]);
  });
});

describe('rollout with the compose runtime', () => {
  it('refuses in preflight, touching no host, when a host answers to no compose command', async () => {
    const f = fleet();
    f.host(2).compose = { sha256: null, error: 'no compose command works on this host: tried …' };
    const failure = await rollout(f.deps, options).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BlockedError);
    expect((failure as Error).message).toBe(
      'preflight: web-2: no compose command works on this host: tried …',
    );
    for (const n of [1, 2, 3]) expect(f.actions(n)).toEqual([]);
  });

  it('sends the compose file with every publish, and a host that cannot prepare fails the rollout undrained', async () => {
    const dir = await scratchDir('handoff-compose-');
    const composeFile = path.join(dir, 'compose.yml');
    await writeFile(composeFile, 'services: {app: {image: "app:${RELEASE}"}}\n');
    const f = fleet(testConfig({ runtime: { kind: 'compose', composeFile } }));
    f.host(1).failOn.set('publish r2', new Error('image app:r2 cannot be pulled'));
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(false);
    expect(result.blocked).toBeUndefined();
    expect(result.prepareFailed).toBe(
      'web-1: prepare failed, this wave was not drained: image app:r2 cannot be pulled',
    );
    expect(f.host(1).published[0]?.map((p) => p.name)).toEqual(['compose.yml']);
    expect(f.host(1).drained).toBe(false);
    for (const n of [1, 2, 3]) expect(f.actions(n)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('rollout', () => {
  it('runs the drain handshake on every host, one at a time, in order', async () => {
    const f = fleet();
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    for (const n of [1, 2, 3]) {
      expect(f.actions(n)).toEqual(HANDSHAKE);
      expect(f.host(n).release).toBe('r2');
      // and, once drained, the checks' warm-up: asked once, waited for by nothing
      expect(f.host(n).warmed).toBe(1);
    }
    expect(f.balancer.maxOut).toBe(1);
  });

  it('stops only after the balancer took the host out and the overlap passed', async () => {
    const f = fleet();
    const result = await rollout(f.deps, options);
    const steps = result.hosts[0]!.steps;
    const at = (s: string) => steps.find((x) => x.step === s)!;
    // out after interval 5 s × unhealthy_threshold 2, then overlap 15 s
    expect(at('await-out').duration_ms).toBeGreaterThanOrEqual(10_000);
    expect(at('overlap').duration_ms).toBe(15_000);
    expect(at('stop').offset_ms).toBeGreaterThanOrEqual(at('drain').offset_ms + 25_000);
  });

  it('writes one audit line per step through the lock holder', async () => {
    const f = fleet();
    await rollout(f.deps, options);
    expect(f.host(1).audit.map((a) => a.step)).toEqual([
      'capacity',
      'drain',
      'await-out',
      'overlap',
      'stop',
      'switch',
      'start',
      'verify',
      'undrain',
      'await-in',
      'confirm',
      'unlock',
    ]);
    expect(f.host(1).audit[0]).toMatchObject({ release: 'r2', who: 'ci@runner', result: 'ok' });
  });

  it('runs confirm’s streak while the balancer brings the host back, and one pass after', async () => {
    const f = fleet();
    const confirms: number[] = [];
    let lockedAt = 0;
    f.host(1).onCall = (op) => {
      if (op === 'confirm') confirms.push(f.clock.now());
      if (op === 'lock') lockedAt = f.clock.now();
    };
    const result = await rollout(f.deps, options);
    const steps = result.hosts[0]?.steps ?? [];
    const at = (name: string) => steps.find((s) => s.step === name)!;
    const startedAt = lockedAt - at('lock').offset_ms;
    const inRotation = startedAt + at('await-in').offset_ms + at('await-in').duration_ms;
    // the fake balancer needs healthy_threshold × interval to put the target back
    expect(at('await-in').duration_ms).toBeGreaterThan(0);
    expect(confirms).toHaveLength(2);
    expect(confirms[0]).toBeLessThan(inRotation);
    expect(confirms[1]).toBeGreaterThanOrEqual(inRotation);
  });

  it('publishes the release on every host of the plan', async () => {
    const f = fleet();
    await rollout(f.deps, options);
    for (const n of [1, 2, 3]) expect(f.host(n).calls).toContain('publish r2');
  });

  it('rolls back a release that fails verify, stops, and leaves later hosts untouched', async () => {
    const f = fleet();
    for (const n of [1, 2, 3]) f.host(n).bad.add('r2');
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(false);
    expect(result.hosts[0]).toMatchObject({
      result: 'rolled-back',
      stoppedAt: 'verify',
      leftDrained: false,
    });
    expect(f.host(1).release).toBe('r1');
    expect(f.actions(1)).toEqual([
      'lock',
      'drain',
      'stop',
      'switch r2',
      'start',
      'verify',
      'stop',
      'switch r1',
      'start',
      'verify',
      'undrain',
      'unlock',
    ]);
    expect(result.notReached).toEqual(['web-2', 'web-3']);
    expect(f.actions(2)).toEqual([]);
    expect(f.host(2).release).toBe('r1');
    expect(f.host(1).stopReleases).toEqual(['r2', 'r1']);
    expect(f.host(1).lenientVerifies).toEqual([false, true]);
  });

  it('reports a rollback the balancer never takes back in rotation as failed, not rolled back', async () => {
    const f = fleet();
    f.host(1).bad.add('r2');
    f.host(1).onCall = (op) => {
      if (op === 'switch r1') f.balancer.neverBack.add('web-1');
    };
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(false);
    expect(result.hosts[0]).toMatchObject({ result: 'failed', leftDrained: false });
    expect(f.host(1).release).toBe('r1');
    const rollback = result.hosts[0]!.steps.find((s) => s.step === 'rollback');
    expect(rollback).toMatchObject({ ok: false });
    expect(rollback?.detail).toMatch(
      /^r1: undrained, but the balancer did not put web-1 back in rotation within /,
    );
    expect(f.log.events.map((e) => e.message).join('\n')).toMatch(
      /NOT drained: rollback did not bring it back healthy/,
    );
  });

  it('with --no-rollback leaves the failed host drained for inspection', async () => {
    const f = fleet();
    f.host(1).bad.add('r2');
    const result = await rollout(f.deps, { ...options, rollback: false });
    expect(result.hosts[0]).toMatchObject({ result: 'failed', leftDrained: true });
    expect(f.host(1).drained).toBe(true);
    expect(f.host(1).locked).toBe(false);
  });

  it('undrains and stops when the balancer never takes the target out', async () => {
    const f = fleet();
    f.balancer.stuck.add('web-1');
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({
      result: 'failed',
      stoppedAt: 'await-out',
      leftDrained: false,
    });
    expect(result.hosts[0]!.error).toContain('still healthy');
    expect(f.actions(1)).toEqual(['lock', 'drain', 'undrain', 'unlock']);
    expect(f.host(1).running).toBe(true);
  });

  it('rolls back, drained again, a release that fails confirm after going back in rotation', async () => {
    const f = fleet();
    f.host(1).failOn.set('confirm', new Error('connection reset'));
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({ result: 'rolled-back', stoppedAt: 'confirm' });
    const after = f.actions(1).slice(f.actions(1).indexOf('confirm') + 1);
    expect(after).toEqual(['drain', 'stop', 'switch r1', 'start', 'verify', 'undrain', 'unlock']);
  });

  it('undrains without stopping anything when interrupted during the overlap', async () => {
    const f = fleet();
    f.host(1).onCall = (op) => {
      if (op === 'drain') f.controller.abort(new Error('SIGTERM'));
    };
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({ result: 'interrupted', leftDrained: false });
    expect(result.hosts[0]!.error).toMatch(/interrupted during/);
    expect(f.actions(1)).toEqual(['lock', 'drain', 'undrain', 'unlock']);
    expect(result.notReached).toEqual(['web-2', 'web-3']);
  });

  it('rolls back when interrupted during verify, then releases the lock', async () => {
    const f = fleet();
    f.host(1).onCall = (op) => {
      if (op === 'start' && f.host(1).release === 'r2') f.controller.abort(new Error('SIGTERM'));
    };
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({ result: 'interrupted', leftDrained: false });
    expect(f.host(1).release).toBe('r1');
    expect(f.host(1).locked).toBe(false);
    expect(f.host(1).drained).toBe(false);
  });

  it('finishes a verify in flight on the first signal, and rolls back at once on a second', async () => {
    const f = fleet();
    const urgent = new AbortController();
    let answer: () => void = () => undefined;
    f.host(1).onCall = (op) => {
      if (op !== 'verify' || f.host(1).release !== 'r2' || f.controller.signal.aborted) return;
      f.host(1).holdVerify = new Promise<void>((r) => (answer = r));
      f.controller.abort(new Error('SIGINT'));
    };
    const running = rollout({ ...f.deps, urgent: urgent.signal }, options);
    await expect.poll(() => f.controller.signal.aborted).toBe(true);
    // the first signal waits for the verify: nothing is undone under it
    await new Promise((r) => setTimeout(r, 20));
    expect(f.actions(1).at(-1)).toBe('verify');
    urgent.abort(new Error('SIGTERM'));
    const result = await running;
    expect(result.hosts[0]).toMatchObject({ result: 'interrupted', leftDrained: false });
    expect(f.host(1).release).toBe('r1');
    expect(f.host(1).drained).toBe(false);
    expect(f.host(1).locked).toBe(false);
    expect(f.actions(1).slice(f.actions(1).indexOf('verify') + 1)).toEqual([
      'stop',
      'switch r1',
      'start',
      'verify',
      'undrain',
      'unlock',
    ]);
    answer();
    expect(result.notReached).toEqual(['web-2', 'web-3']);
  });

  it('is blocked by the capacity guard before draining anything', async () => {
    const f = fleet(testConfig({ rollout: { ...testConfig().rollout, minHealthy: 2 } }));
    f.host(2).bad.add('r1');
    await expect(rollout(f.deps, options)).rejects.toThrow(BlockedError);
    for (const n of [1, 2, 3]) expect(f.actions(n)).toEqual([]);
  });

  it('deploys a fresh fleet where no target is in rotation yet', async () => {
    const f = fleet(testConfig(), null);
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    expect(f.host(3).release).toBe('r2');
  });

  it('never drains more than the batch at once', async () => {
    const config = testConfig(
      { rollout: { ...testConfig().rollout, batch: { kind: 'count', count: 2 }, minHealthy: 2 } },
      4,
    );
    const f = fleet(config);
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    expect(f.balancer.maxOut).toBe(2);
  });

  it('refuses to start when an invariant is broken against the balancer settings', async () => {
    const config = testConfig({ drain: { ...testConfig().drain, maxRequest: 90_000 } });
    const f = fleet(config);
    await expect(rollout(f.deps, options)).rejects.toThrow(InvariantError);
    expect(f.actions(1)).toEqual([]);
  });

  it('refuses a host whose agent differs from this deploy', async () => {
    const f = fleet();
    // what AgentClient answers when the agent refuses --expect-agent
    f.host(1).failOn.set(
      'status',
      new AgentError(
        'web-1',
        'agent-version',
        "agent 0.0.9 (abc) differs from this deploy's; run 'deploy setup --hosts web-1'",
        3,
      ),
    );
    await expect(rollout(f.deps, options)).rejects.toThrow(
      /preflight: web-1: agent 0.0.9.*deploy setup --hosts web-1/,
    );
    for (const n of [1, 2, 3]) expect(f.actions(n)).toEqual([]);
  });

  it('repairs a drain marker left by an interrupted rollout before starting', async () => {
    const f = fleet();
    f.host(2).drained = true;
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    expect(f.host(2).calls.slice(0, 6)).toEqual([
      'node',
      'status',
      'lock',
      'verify',
      'undrain',
      'unlock',
    ]);
    expect(f.log.events.some((e) => e.event === 'repair' && e.host === 'web-2')).toBe(true);
  });

  it('changes nothing on a dry run', async () => {
    const f = fleet();
    const result = await rollout(f.deps, { ...options, dryRun: true });
    expect(result.ok).toBe(true);
    for (const n of [1, 2, 3]) expect(f.host(n).calls).toEqual(['node', 'status']);
  });
});

describe('recovery, as a reviewer broke it', () => {
  it('with --no-rollback drains again a host that failed confirm after going back in rotation', async () => {
    const f = fleet();
    f.host(1).failOn.set('confirm', new Error('reset'));
    const result = await rollout(f.deps, { ...options, rollback: false });
    expect(result.hosts[0]).toMatchObject({ result: 'failed', leftDrained: true });
    expect(f.host(1).drained).toBe(true);
  });

  it('rolls back to what ran before the rollout, even when the switch reply never came', async () => {
    const f = fleet();
    const h = f.host(1);
    const switchTo = h.answers.switch!;
    h.answers.switch = async (a) => {
      await switchTo(a);
      if (a.release === 'r2') throw new Error('timed out');
      return { previous: 'r1', current: a.release };
    };
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({ result: 'rolled-back', stoppedAt: 'switch' });
    expect(h.release).toBe('r1');
  });

  it('redeploying the live release and failing rolls back to that release, not an older one', async () => {
    const f = fleet();
    f.host(1).previous = 'r0';
    f.host(1).failOn.set('confirm', new Error('reset'));
    const result = await rollout(f.deps, { ...options, release: 'r1' });
    expect(result.hosts[0]).toMatchObject({ result: 'rolled-back' });
    expect(f.host(1).release).toBe('r1');
  });

  it('leaves a fresh host that fails its first release drained, and says so truthfully', async () => {
    const f = fleet(testConfig(), null);
    f.host(1).bad.add('r2');
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({ result: 'failed', leftDrained: true });
    expect(f.host(1).drained).toBe(true);
  });
});

describe('a stop that is not proven', () => {
  it('fails the host at stop, starts again only what is stopped, and leaves later hosts untouched', async () => {
    const f = fleet();
    f.host(1).stopIgnored = true;
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(false);
    expect(result.hosts[0]).toMatchObject({
      result: 'rolled-back',
      stoppedAt: 'stop',
      leftDrained: false,
      error: 'web-1: app: stop exited 0 but 127.0.0.1:8080 still accepts connections',
    });
    // nothing switched, nothing started on top of the live app
    expect(f.actions(1)).toEqual([
      'lock',
      'drain',
      'stop',
      'start if-stopped',
      'verify',
      'undrain',
      'unlock',
    ]);
    // the release being deployed, for the stop's adoption rule; the rollback verify
    // accepts a previous release that predates x-release
    expect(f.host(1).stopReleases).toEqual(['r2']);
    expect(f.host(1).lenientVerifies).toEqual([true]);
    expect(f.host(1).release).toBe('r1');
    expect(result.notReached).toEqual(['web-2', 'web-3']);
    expect(f.actions(2)).toEqual([]);
    const stop = result.hosts[0]!.steps.find((s) => s.step === 'stop');
    expect(stop).toMatchObject({ ok: false });
    expect(stop?.detail).toContain('127.0.0.1:8080 still accepts connections');
  });

  it('leaves drained a fresh host whose adopted service would not stop', async () => {
    const f = fleet(testConfig(), null);
    f.host(1).adoptable = ['app'];
    f.host(1).stopIgnored = true;
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({
      result: 'failed',
      stoppedAt: 'stop',
      leftDrained: true,
    });
    expect(f.actions(1)).not.toContain('switch r2');
    expect(f.actions(1).filter((a) => a.startsWith('start'))).toEqual([]);
    expect(result.hosts[0]?.error).toContain('127.0.0.1:8080 still accepts connections');
  });
});

describe('drain.method deregister through a balancer that refuses', () => {
  const deregistering = () => {
    const base = testConfig();
    return fleet(
      { ...base, drain: { ...base.drain, method: 'deregister' } },
      'r1',
      (hosts, clock) =>
        new FakeBalancer(hosts, clock, { ...settings, deregistrationDelay: 30_000 }),
    );
  };

  it('proves RegisterTargets in preflight on a healthy target, and refuses, exit 3, nothing touched', async () => {
    const f = deregistering();
    f.balancer.refuse = new BlockedError(
      'ALB checking RegisterTargets with web-1, registered and healthy already (no change): access denied: the credentials lack the IAM permission elasticloadbalancing:RegisterTargets (docs/balancers.md lists all of them)',
    );
    const failure = await rollout(f.deps, options).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BlockedError);
    expect((failure as Error).message).toContain('elasticloadbalancing:RegisterTargets');
    for (const n of [1, 2, 3]) expect(f.actions(n)).toEqual([]);
    expect(f.balancer.deregistered).toEqual([]);
  });

  it('removes a leftover drain marker even when the balancer refuses to register the target', async () => {
    const f = deregistering();
    f.host(2).drained = true;
    f.balancer.refuseRegister = new Error('Throttling: Rate exceeded');
    const failure = await rollout(f.deps, options).catch((e: unknown) => e);
    expect((failure as Error).message).toBe('Throttling: Rate exceeded');
    // as a deploy's undrain: the health endpoint does not keep answering 503 for a refusal
    expect(f.host(2).drained).toBe(false);
    expect(f.host(2).calls.slice(0, 6)).toEqual([
      'node',
      'status',
      'lock',
      'verify',
      'undrain',
      'unlock',
    ]);
    expect(f.host(2).locked).toBe(false);
  });

  it('proves it once, on a healthy target, and deploys when it is allowed', async () => {
    const f = deregistering();
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    expect(f.balancer.proved).toEqual(['web-1']);
    expect(f.balancer.deregistered).toEqual(['web-1', 'web-2', 'web-3']);
  });

  it('a dry run makes no register call', async () => {
    const f = deregistering();
    const result = await rollout(f.deps, { ...options, dryRun: true });
    expect(result.ok).toBe(true);
    expect(f.balancer.proved).toEqual([]);
  });

  it('a deregister refused comes before the drain marker: nothing drained, not left drained, exit 3', async () => {
    const f = deregistering();
    f.balancer.refuseDeregister = new BlockedError(
      'ALB deregistering web-1: access denied: the credentials lack the IAM permission elasticloadbalancing:DeregisterTargets (docs/balancers.md lists all of them)',
    );
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({
      result: 'failed',
      stoppedAt: 'drain',
      leftDrained: false,
      blocked: true,
    });
    expect(result.hosts[0]?.error).toContain('elasticloadbalancing:DeregisterTargets');
    expect(f.host(1).drained).toBe(false);
    expect(f.actions(1)).toEqual(['lock', 'unlock']);
    // a host that is not drained is not asked to warm its checks
    expect(f.host(1).warmed).toBe(0);
    expect(result.notReached).toEqual(['web-2', 'web-3']);
    expect(rolloutFailure(result, 'stopped').exitCode).toBe(3);
  });

  it('a deregister refused that the balancer cannot confirm undone is undone like a drain', async () => {
    const f = deregistering();
    // both calls fail once the host is locked, and from the deregister on the balancer
    // cannot say where the target is
    f.host(1).onCall = (op) => {
      if (op === 'lock')
        f.balancer.refuse = new BlockedError('ALB: AWS failed (5xx) on DeregisterTargets');
    };
    const deregister = f.balancer.deregister.bind(f.balancer);
    f.balancer.deregister = (target: string) => {
      f.balancer.failStates(new BlockedError('ALB reading target health: 503'), 1);
      return deregister(target);
    };
    const result = await rollout(f.deps, options);
    // it may have been deregistered: the undrain is tried, and its refusal leaves it drained
    expect(result.hosts[0]).toMatchObject({ stoppedAt: 'drain', leftDrained: true });
    expect(result.hosts[0]?.blocked).toBeUndefined();
    expect(f.actions(1)).toEqual(['lock', 'undrain', 'unlock']);
  });
});

describe('adopting a host with no release', () => {
  it('stops what already runs, records it, and deploys the first release', async () => {
    const f = fleet(testConfig(), null);
    for (const n of [1, 2, 3]) f.host(n).adoptable = ['app'];
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    for (const n of [1, 2, 3]) expect(f.host(n).release).toBe('r2');
    const stop = result.hosts[0]!.steps.find((s) => s.step === 'stop');
    expect(stop).toMatchObject({ ok: true, detail: 'adopted app' });
  });
});

describe('stopping between waves', () => {
  it('keeps the deployed waves in the result when the capacity guard stops a later one', async () => {
    const f = fleet();
    // web-3 breaks while web-1 deploys: draining web-2 would leave too little
    f.host(1).onCall = (op) => {
      if (op === 'unlock') f.host(3).bad.add('r1');
    };
    const config = testConfig({ rollout: { ...testConfig().rollout, minHealthy: 2 } });
    const result = await rollout({ ...f.deps, config }, options);
    expect(result.ok).toBe(false);
    expect(result.hosts.map((h) => [h.host, h.result])).toEqual([['web-1', 'deployed']]);
    expect(result.blocked).toMatch(/capacity guard before web-2/);
    expect(result.notReached).toEqual(['web-2', 'web-3']);
  });

  it('stops with a result, not a throw, when the balancer cannot answer before a later wave', async () => {
    const f = fleet();
    const throttled = new BlockedError(
      "ALB reading target health: AWS throttled DescribeTargetHealth for 60.0 s (21 attempts, with backoff): retry when the account's API is less busy",
    );
    f.host(1).onCall = (op) => {
      if (op === 'unlock') f.balancer.failStates(throttled);
    };
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(false);
    expect(result.hosts.map((h) => [h.host, h.result])).toEqual([['web-1', 'deployed']]);
    expect(result.blocked).toBe(
      `capacity guard before web-2: the balancer did not answer (${throttled.message}); nothing of this wave was drained`,
    );
    expect(result.notReached).toEqual(['web-2', 'web-3']);
    expect(result.ended).toEqual(ended('r2', 'r1', 'r1'));
    expect(rolloutFailure(result, 'stopped').exitCode).toBe(3);
    for (const n of [2, 3]) expect(f.actions(n)).toEqual([]);
  });

  it('marks a host whose lock was taken after preflight as blocked, not failed', async () => {
    const f = fleet();
    f.host(1).failOn.set('lock', new BlockedError('lock held by deploy lock exec'));
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({
      result: 'failed',
      blocked: true,
      stoppedAt: 'lock',
      leftDrained: false,
    });
  });
});

describe('preflight and the host lock', () => {
  it('refuses a fleet where another deploy holds a host lock, exit 3, nothing changed', async () => {
    const f = fleet();
    f.host(2).locked = true;
    await expect(rollout(f.deps, options)).rejects.toThrow(
      /host lock held on web-2 \(deploy rollout\)/,
    );
    for (const n of [1, 2, 3]) expect(f.actions(n)).toEqual([]);
  });

  it("refuses a fleet whose host config is not this deploy.yml's, exit 3, nothing changed", async () => {
    const f = fleet();
    for (const n of [1, 2, 3]) f.host(n).configSha256 = 'sha-of-deploy-yml';
    f.host(2).configSha256 = 'sha-of-an-older-setup';
    const deps = { ...f.deps, hostConfigSha256: 'sha-of-deploy-yml' };
    const error = await rollout(deps, options).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BlockedError);
    expect((error as Error).message).toBe(
      "preflight: the host config on web-2 is not this deploy.yml's (changed since the last 'deploy setup'); run 'deploy setup' so the hosts verify and stop by what deploy.yml says",
    );
    for (const n of [1, 2, 3]) expect(f.actions(n)).toEqual([]);
  });

  it('is not refused by a watchdog tick that holds a lock for a moment', async () => {
    const f = fleet();
    f.host(2).locked = true;
    f.host(2).holderWhat = 'watchdog';
    expect((await rollout(f.deps, options)).ok).toBe(true);
  });
});
