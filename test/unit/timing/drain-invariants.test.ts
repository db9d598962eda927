import { describe, expect, it } from 'vitest';
import { timingModel } from '../../../src/timing/model.js';
import { input, only, s } from './fixture.js';

describe('drain-before-stop', () => {
  it('holds when the overlap is longer than one check timeout', () => {
    expect(only(timingModel(input()), 'drain-before-stop')).toEqual({
      id: 'drain-before-stop',
      severity: 'error',
      ok: true,
      message: 'overlap 15s ≥ check timeout 2s after detection 10s (5s × 2): ok',
    });
  });

  it('holds when the overlap equals the check timeout', () => {
    const model = timingModel(input({ drain: { overlap: s(2) } }));
    expect(only(model, 'drain-before-stop').ok).toBe(true);
  });

  it('fails when the overlap is one millisecond shorter than the check timeout', () => {
    const model = timingModel(input({ drain: { overlap: s(2) - 1 } }));
    expect(only(model, 'drain-before-stop')).toEqual({
      id: 'drain-before-stop',
      severity: 'error',
      ok: false,
      message:
        'overlap 1s999ms < check timeout 2s after detection 10s (5s × 2): the balancer may still route requests when the services stop; set drain.overlap to at least 2s',
    });
  });

  it('fails on a zero overlap even when the check timeout is zero', () => {
    const model = timingModel(input({ settings: { timeout: 0 }, drain: { overlap: 0 } }));
    const inv = only(model, 'drain-before-stop');
    expect(inv.ok).toBe(false);
    expect(inv.message).toContain('set drain.overlap to at least 1ms');
  });

  it('holds on a one millisecond overlap when the check timeout is zero', () => {
    const model = timingModel(input({ settings: { timeout: 0 }, drain: { overlap: 1 } }));
    expect(only(model, 'drain-before-stop').ok).toBe(true);
  });

  it('counts from the deregistration with method deregister', () => {
    const model = timingModel(
      input({ drain: { method: 'deregister' }, settings: { deregistrationDelay: s(300) } }),
    );
    expect(only(model, 'drain-before-stop').message).toBe(
      'overlap 15s ≥ check timeout 2s after deregistration: ok',
    );
  });
});

describe('request-before-kill', () => {
  it('holds when max_request is one millisecond below stop_timeout', () => {
    const model = timingModel(input({ drain: { maxRequest: s(150) - 1 } }));
    expect(only(model, 'request-before-kill')).toEqual({
      id: 'request-before-kill',
      severity: 'error',
      ok: true,
      message: 'max_request 2m29s999ms < stop_timeout 2m30s: ok',
    });
  });

  it('fails when max_request equals stop_timeout', () => {
    const model = timingModel(input({ drain: { maxRequest: s(150) } }));
    expect(only(model, 'request-before-kill')).toEqual({
      id: 'request-before-kill',
      severity: 'error',
      ok: false,
      message:
        'max_request 2m30s ≥ stop_timeout 2m30s: the longest request is killed before it ends; raise drain.stop_timeout above drain.max_request',
    });
  });
});

describe('deregistration-delay', () => {
  const deregister = (delay: number | undefined, maxRequest = s(30)) =>
    timingModel(
      input({
        drain: { method: 'deregister', maxRequest },
        settings: { deregistrationDelay: delay },
      }),
    );

  it('is not checked with method health', () => {
    const model = timingModel(input({ settings: { deregistrationDelay: 0 } }));
    expect(model.invariants.map((i) => i.id)).not.toContain('deregistration-delay');
  });

  it('holds when the delay equals max_request', () => {
    expect(only(deregister(s(30)), 'deregistration-delay')).toEqual({
      id: 'deregistration-delay',
      severity: 'error',
      ok: true,
      message: 'deregistration delay 30s ≥ max_request 30s: ok',
    });
  });

  it('fails when the delay is one millisecond shorter than max_request', () => {
    expect(only(deregister(s(30) - 1), 'deregistration-delay')).toEqual({
      id: 'deregistration-delay',
      severity: 'error',
      ok: false,
      message:
        'deregistration delay 29s999ms < max_request 30s: the balancer resets requests still running when the delay ends; raise the deregistration delay to at least 30s',
    });
  });

  it('fails when the delay is unknown', () => {
    expect(only(deregister(undefined), 'deregistration-delay')).toEqual({
      id: 'deregistration-delay',
      severity: 'error',
      ok: false,
      message:
        "deregistration delay unknown, max_request 30s: nothing bounds how long the balancer keeps in-flight requests; run 'deploy check --live', set the delay in the health-check settings, or use drain.method health",
    });
  });

  it('unknown on a balancer that says where it is set: the fix names that setting', () => {
    const model = timingModel(
      input({
        drain: { method: 'deregister', maxRequest: s(30) },
        settings: { deregistrationDelaySetting: "worker_shutdown_timeout in nginx's main config" },
      }),
    );
    expect(only(model, 'deregistration-delay').message).toBe(
      "deregistration delay unknown, max_request 30s: nothing bounds how long the balancer keeps in-flight requests; set worker_shutdown_timeout in nginx's main config to at least 30s",
    );
    // known, the setting's name changes nothing
    const known = timingModel(
      input({
        drain: { method: 'deregister', maxRequest: s(30) },
        settings: { deregistrationDelay: s(30), deregistrationDelaySetting: 'x' },
      }),
    );
    expect(only(known, 'deregistration-delay').message).toBe(
      'deregistration delay 30s ≥ max_request 30s: ok',
    );
  });
});

describe('check-timeout', () => {
  it('holds when the timeout is one millisecond below the interval', () => {
    const model = timingModel(input({ settings: { timeout: s(5) - 1 }, drain: { overlap: s(5) } }));
    expect(only(model, 'check-timeout')).toEqual({
      id: 'check-timeout',
      severity: 'error',
      ok: true,
      message: 'check timeout 4s999ms < interval 5s: ok',
    });
  });

  it('fails when the timeout equals the interval', () => {
    const model = timingModel(input({ settings: { timeout: s(5) } }));
    expect(only(model, 'check-timeout')).toEqual({
      id: 'check-timeout',
      severity: 'error',
      ok: false,
      message:
        'check timeout 5s ≥ interval 5s: checks overlap and the detection bound no longer holds; lower the health-check timeout below the interval',
    });
  });
});
