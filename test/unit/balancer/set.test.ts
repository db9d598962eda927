import { describe, expect, it } from 'vitest';
import type { Balancer, TargetState } from '../../../src/balancer/balancer.js';
import { BalancerSet, envelope, membersOf } from '../../../src/balancer/set.js';
import { stateAt } from '../../../src/balancer/set-states.js';
import type { HealthCheckSettings } from '../../../src/config/types.js';
import { BlockedError } from '../../../src/errors.js';

/** A scripted balancer: fixed states by target, and every call it was made. */
class Scripted implements Balancer {
  readonly kind = 'haproxy' as const;
  readonly calls: string[] = [];
  constructor(
    private readonly answers: Record<string, Partial<TargetState>>,
    private readonly s: HealthCheckSettings = {
      interval: 1_000,
      timeout: 500,
      unhealthyThreshold: 2,
      healthyThreshold: 2,
    },
    private readonly refuse?: Error,
  ) {}
  settings() {
    return Promise.resolve(this.s);
  }
  states(targets: readonly string[]) {
    this.calls.push(`states ${targets.join(',')}`);
    return Promise.resolve(
      new Map<string, TargetState>(
        targets.map((t) => [
          t,
          { target: t, state: 'healthy', inRotation: true, ...this.answers[t] },
        ]),
      ),
    );
  }
  deregister(t: string) {
    this.calls.push(`deregister ${t}`);
    return this.refuse ? Promise.reject(this.refuse) : Promise.resolve();
  }
  register(t: string) {
    this.calls.push(`register ${t}`);
    return this.refuse ? Promise.reject(this.refuse) : Promise.resolve();
  }
  close() {
    this.calls.push('close');
    return Promise.resolve();
  }
}

const out = { state: 'draining', inRotation: false } as const;

function pair(a: Scripted, b: Scripted, targetsOfB: Record<string, string> = {}) {
  return new BalancerSet([
    { name: 'lb-a', balancer: a, targets: new Map() },
    { name: 'lb-b', balancer: b, targets: new Map(Object.entries(targetsOfB)) },
  ]);
}

describe('a set of balancers', () => {
  it('has a host out of rotation only when every balancer says so', async () => {
    const set = pair(new Scripted({ 'web-1': out }), new Scripted({ 'web-1': out }));
    const s = (await set.states(['web-1'])).get('web-1');
    expect(s).toMatchObject({ target: 'web-1', state: 'draining', inRotation: false });
    expect(s?.reason).toBe('lb-a: draining, lb-b: draining');
  });

  it('has a host in rotation only when every balancer says so', async () => {
    const set = pair(new Scripted({}), new Scripted({}));
    expect((await set.states(['web-1'])).get('web-1')).toMatchObject({
      inRotation: true,
      state: 'healthy',
    });
  });

  it('answers neither while the balancers disagree, naming each view', async () => {
    const set = pair(new Scripted({ 'web-1': out }), new Scripted({ 'web-1': { reason: 'L7OK' } }));
    const s = (await set.states(['web-1'])).get('web-1');
    expect(s).toMatchObject({ state: 'mixed', inRotation: null });
    expect(s?.reason).toBe('lb-a: draining, lb-b: healthy (L7OK)');
    expect(stateAt(s, 'lb-a')?.inRotation).toBe(false);
    expect(stateAt(s, 'lb-b')?.inRotation).toBe(true);
  });

  it("asks each balancer by its own target and answers by the host's default one", async () => {
    const b = new Scripted({ 'web1-grpc': out });
    const set = pair(new Scripted({ 'web-1': out }), b, { 'web-1': 'web1-grpc' });
    const s = (await set.states(['web-1', 'web-2'])).get('web-1');
    expect(b.calls).toEqual(['states web1-grpc,web-2']);
    expect(s).toMatchObject({ target: 'web-1', inRotation: false });
    await set.deregister('web-1');
    expect(b.calls).toContain('deregister web1-grpc');
  });

  it('says a host is unregistered when any balancer lacks it', async () => {
    const missing = { state: 'unused', inRotation: false, unregistered: 'absent' } as const;
    const set = pair(new Scripted({ 'web-1': out }), new Scripted({ 'web-1': missing }));
    expect((await set.states(['web-1'])).get('web-1')?.unregistered).toBe('absent');
  });

  it('passes one balancer through unchanged', async () => {
    const a = new Scripted({ 'web-1': { ...out, reason: 'drain' } });
    const set = new BalancerSet([{ name: 'lb-a', balancer: a, targets: new Map() }]);
    expect((await set.states(['web-1'])).get('web-1')).toEqual({
      target: 'web-1',
      state: 'draining',
      inRotation: false,
      reason: 'drain',
    });
    expect(set.kind).toBe('haproxy');
  });

  it('deregisters on every balancer even when one refuses, and names the one that did', async () => {
    const a = new Scripted({}, undefined, new BlockedError('access denied'));
    const b = new Scripted({});
    const error = await pair(a, b)
      .deregister('web-1')
      .catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(BlockedError);
    expect((error as Error).message).toBe('lb-a: access denied');
    expect(b.calls).toEqual(['deregister web-1']);
  });

  it('registers on every balancer', async () => {
    const [a, b] = [new Scripted({}), new Scripted({})];
    await pair(a, b).register('web-2');
    expect([a.calls, b.calls]).toEqual([['register web-2'], ['register web-2']]);
  });

  it('closes every balancer', async () => {
    const [a, b] = [new Scripted({}), new Scripted({})];
    await pair(a, b).close();
    expect([a.calls, b.calls]).toEqual([['close'], ['close']]);
  });

  it('gives callers that take one set of settings the slowest of each', async () => {
    const a = new Scripted(
      {},
      {
        interval: 1_000,
        timeout: 900,
        unhealthyThreshold: 5,
        healthyThreshold: 2,
        slowStart: 10_000,
      },
    );
    const b = new Scripted(
      {},
      {
        interval: 3_000,
        timeout: 500,
        unhealthyThreshold: 3,
        healthyThreshold: 2,
        deregistrationDelay: 5_000,
      },
    );
    expect(await pair(a, b).settings()).toEqual({
      interval: 3_000,
      timeout: 900,
      unhealthyThreshold: 5,
      healthyThreshold: 2,
      deregistrationDelay: 5_000,
      slowStart: 10_000,
    });
    expect(
      envelope([
        {
          interval: 1,
          timeout: 1,
          unhealthyThreshold: 1,
          healthyThreshold: 1,
          idleTimeout: 60_000,
        },
      ]).idleTimeout,
    ).toBe(60_000);
  });

  it("keeps where an unknown delay is set, and drops it once a member's delay is known", () => {
    const base = { interval: 1, timeout: 1, unhealthyThreshold: 1, healthyThreshold: 1 };
    const nginx = { ...base, deregistrationDelaySetting: 'worker_shutdown_timeout' };
    expect(envelope([base, nginx]).deregistrationDelaySetting).toBe('worker_shutdown_timeout');
    const known = envelope([nginx, { ...base, deregistrationDelay: 5_000 }]);
    expect(known.deregistrationDelay).toBe(5_000);
    expect(known.deregistrationDelaySetting).toBeUndefined();
  });

  it('sees a balancer that is not a set as a set of one named by its kind', () => {
    const a = new Scripted({});
    expect(membersOf(a).map((m) => m.name)).toEqual(['haproxy']);
  });
});
