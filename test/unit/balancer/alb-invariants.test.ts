import { describe, expect, it } from 'vitest';
import { albInvariants } from '../../../src/balancer/alb/invariants.js';
import { timingModel as shared } from '../../../src/timing/model.js';
import type { TimingInput } from '../../../src/timing/types.js';
import type { AlbHealthCheck } from '../../../src/balancer/alb/health-check.js';
import { input as anyInput, only, s } from '../timing/fixture.js';

const input = anyInput<AlbHealthCheck>;

/** the model of one ALB entry: the shared invariants and the kind's own */
const timingModel = (i: TimingInput<AlbHealthCheck>) => shared(i, albInvariants);

const ids = (model: ReturnType<typeof timingModel>) => model.invariants.map((i) => i.id);

describe('connection-termination', () => {
  const nlb = (delay: number, overlap = s(15), stopTimeout = s(150)) =>
    timingModel(
      input({
        drain: { method: 'deregister', overlap, stopTimeout },
        settings: { deregistrationDelay: delay, connectionTermination: true },
      }),
    );

  it('holds when the overlap and the whole stop fit in the delay', () => {
    expect(only(nlb(s(165)), 'connection-termination')).toEqual({
      id: 'connection-termination',
      severity: 'error',
      ok: true,
      message:
        'connection termination on: overlap 15s + stop_timeout 2m30s = 2m45s ≤ deregistration delay 2m45s: ok',
    });
  });

  it('fails one millisecond short, naming the delay it needs', () => {
    const inv = only(nlb(s(165) - 1), 'connection-termination');
    expect(inv.ok).toBe(false);
    expect(inv.message).toBe(
      'connection termination on: overlap 15s + stop_timeout 2m30s = 2m45s > deregistration delay 2m44s999ms: the NLB resets every connection still open to the target when the delay ends, while its services may still be serving; raise the deregistration delay to at least 2m45s, or turn deregistration_delay.connection_termination.enabled off',
    );
  });

  it('fails the check as a whole (an error)', () => {
    const model = nlb(s(60));
    expect(model.invariants.filter((i) => !i.ok).map((i) => i.id)).toEqual([
      'connection-termination',
    ]);
  });

  it('is not raised without the attribute, or with drain.method health', () => {
    const off = timingModel(
      input({ drain: { method: 'deregister' }, settings: { deregistrationDelay: s(60) } }),
    );
    const health = timingModel(
      input({ settings: { deregistrationDelay: s(60), connectionTermination: true } }),
    );
    expect(ids(off)).not.toContain('connection-termination');
    expect(ids(health)).not.toContain('connection-termination');
  });

  it('is not raised while the delay is unknown: deregistration-delay already fails on that', () => {
    const unknown = timingModel(
      input({ drain: { method: 'deregister' }, settings: { connectionTermination: true } }),
    );
    expect(ids(unknown)).not.toContain('connection-termination');
    expect(only(unknown, 'deregistration-delay').ok).toBe(false);
  });
});

describe('check-protocol', () => {
  it('refuses drain.method health behind a TCP health check', () => {
    const inv = only(timingModel(input({ settings: { checkProtocol: 'TCP' } })), 'check-protocol');
    expect(inv).toMatchObject({ severity: 'error', ok: false });
    expect(inv.message).toContain("the drain's 503 passes it and the target never leaves rotation");
  });

  it('is not raised for an HTTP check, or with drain.method deregister', () => {
    const http = timingModel(input({ settings: { checkProtocol: 'HTTP' } }));
    const deregister = timingModel(
      input({
        drain: { method: 'deregister' },
        settings: { checkProtocol: 'TCP', deregistrationDelay: s(60) },
      }),
    );
    expect(ids(http)).not.toContain('check-protocol');
    expect(ids(deregister)).not.toContain('check-protocol');
  });
});

describe('unhealthy-termination', () => {
  const nlb = (settings: { unhealthyTermination?: boolean; unhealthyDrainingInterval?: number }) =>
    timingModel(input({ drain: { overlap: s(15), stopTimeout: s(150) }, settings }));

  it('refuses drain.method health when the NLB resets an unhealthy target’s connections (AWS’s default)', () => {
    const inv = only(nlb({ unhealthyTermination: true }), 'unhealthy-termination');
    expect(inv).toMatchObject({ severity: 'error', ok: false });
    expect(inv.message).toBe(
      "unhealthy connection termination on: the NLB resets every connection to a host the moment the drain's 503 makes it unhealthy, cutting what the overlap and the stop (2m45s) still serve; set target_health_state.unhealthy.connection_termination.enabled false (draining_interval_seconds 0, or at least 2m45s), or use drain.method deregister",
    );
  });

  it('holds with termination off and no draining interval: the connections are kept', () => {
    const inv = only(
      nlb({ unhealthyTermination: false, unhealthyDrainingInterval: 0 }),
      'unhealthy-termination',
    );
    expect(inv.ok).toBe(true);
    expect(inv.message).toBe(
      "unhealthy connection termination off: an unhealthy host's connections are kept until the services close them: ok",
    );
  });

  it('holds with termination off and the draining interval not read: nothing ends the connections', () => {
    expect(only(nlb({ unhealthyTermination: false }), 'unhealthy-termination')).toEqual({
      id: 'unhealthy-termination',
      severity: 'error',
      ok: true,
      message:
        "unhealthy connection termination off: an unhealthy host's connections are kept until the services close them: ok",
    });
  });

  it('holds when the draining interval covers the overlap and the stop, and fails one millisecond short', () => {
    expect(
      only(
        nlb({ unhealthyTermination: false, unhealthyDrainingInterval: s(165) }),
        'unhealthy-termination',
      ),
    ).toEqual({
      id: 'unhealthy-termination',
      severity: 'error',
      ok: true,
      message:
        "unhealthy connection termination off: an unhealthy host's connections are kept 2m45s ≥ overlap + stop_timeout 2m45s: ok",
    });
    expect(
      only(
        nlb({ unhealthyTermination: false, unhealthyDrainingInterval: s(165) - 1 }),
        'unhealthy-termination',
      ),
    ).toEqual({
      id: 'unhealthy-termination',
      severity: 'error',
      ok: false,
      message:
        "unhealthy connection termination off, but an unhealthy host's connections are kept 2m44s999ms < overlap + stop_timeout 2m45s: the NLB resets them while its services may still be serving; set target_health_state.unhealthy.connection_termination.enabled false (draining_interval_seconds 0, or at least 2m45s), or use drain.method deregister",
    });
  });

  it('is not raised without the attribute (an ALB), or with drain.method deregister', () => {
    const alb = timingModel(input({ settings: {} }));
    const deregister = timingModel(
      input({
        drain: { method: 'deregister' },
        settings: { unhealthyTermination: true, deregistrationDelay: s(300) },
      }),
    );
    expect(ids(alb)).not.toContain('unhealthy-termination');
    expect(ids(deregister)).not.toContain('unhealthy-termination');
  });
});
