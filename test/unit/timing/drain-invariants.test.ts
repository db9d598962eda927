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

describe('sessions-kept', () => {
  const where = '/etc/haproxy/haproxy.cfg line 12: default-server on-marked-down shutdown-sessions';

  it("is not there when the balancer's config says nothing of it", () => {
    expect(timingModel(input()).invariants.map((i) => i.id)).not.toContain('sessions-kept');
  });

  it("fails as an error with drain.method health: the drain's 503 kills the sessions the overlap serves", () => {
    const model = timingModel(input({ settings: { shutdownSessionsOnDown: where } }));
    expect(only(model, 'sessions-kept')).toEqual({
      id: 'sessions-kept',
      severity: 'error',
      ok: false,
      message: `on-marked-down shutdown-sessions at ${where}: the drain's 503 marks the server down, and haproxy kills the sessions the overlap keeps serving; remove on-marked-down shutdown-sessions there and reload haproxy`,
    });
  });

  it('warns with drain.method deregister: only the stop marks the server down', () => {
    const model = timingModel(
      input({
        settings: { shutdownSessionsOnDown: where, deregistrationDelay: s(30) },
        drain: { method: 'deregister' },
      }),
    );
    expect(only(model, 'sessions-kept')).toEqual({
      id: 'sessions-kept',
      severity: 'warning',
      ok: false,
      message: `on-marked-down shutdown-sessions at ${where}: the stopping services fail their checks, and haproxy kills the sessions a graceful stop would finish; remove on-marked-down shutdown-sessions there and reload haproxy`,
    });
  });

  it('warns with a 404 answer to disable-on-404: NOLB is not down, only the stop marks it down', () => {
    const soft = { shutdownSessionsOnDown: where, disableOn404: 'haproxy.cfg line 9' };
    const model = timingModel(input({ settings: soft, drain: { answer: 404 } }));
    expect(only(model, 'sessions-kept')).toMatchObject({ severity: 'warning', ok: false });
    expect(only(model, 'sessions-kept').message).toContain(
      'the stopping services fail their checks',
    );
  });

  it('fails as an error with the 503 answer to a backend with disable-on-404: only a 404 is a soft stop', () => {
    const soft = { shutdownSessionsOnDown: where, disableOn404: 'haproxy.cfg line 9' };
    const model = timingModel(input({ settings: soft, drain: { answer: 503 } }));
    expect(only(model, 'sessions-kept')).toMatchObject({ severity: 'error', ok: false });
  });

  it('fails as an error with a 404 answer to a backend without disable-on-404: the 404 marks it down', () => {
    const hard = { shutdownSessionsOnDown: where, disableOn404: false as const };
    const model = timingModel(input({ settings: hard, drain: { answer: 404 } }));
    expect(only(model, 'sessions-kept')).toMatchObject({ severity: 'error', ok: false });
  });
});

describe('drain-answer', () => {
  const where = '/etc/haproxy/haproxy.cfg line 7: http-check disable-on-404';
  const ids = (m: ReturnType<typeof timingModel>) => m.invariants.map((i) => i.id);

  it('is not there when no config file was read, or 503 meets a backend without the line', () => {
    expect(ids(timingModel(input()))).not.toContain('drain-answer');
    expect(ids(timingModel(input({ drain: { answer: 404 } })))).not.toContain('drain-answer');
    expect(ids(timingModel(input({ settings: { disableOn404: false } })))).not.toContain(
      'drain-answer',
    );
  });

  it('holds for a 404 answer to a backend with disable-on-404, naming its line', () => {
    const model = timingModel(input({ settings: { disableOn404: where }, drain: { answer: 404 } }));
    expect(only(model, 'drain-answer')).toEqual({
      id: 'drain-answer',
      severity: 'warning',
      ok: true,
      message: `drain.answer 404 with http-check disable-on-404 at ${where}: the first 404 soft-stops the server (NOLB: persistent clients still served until the services stop): ok`,
    });
  });

  it('warns of a 404 answer to a backend without disable-on-404: a failed check, not a soft stop', () => {
    const model = timingModel(input({ settings: { disableOn404: false }, drain: { answer: 404 } }));
    expect(only(model, 'drain-answer')).toMatchObject({ severity: 'warning', ok: false });
    expect(only(model, 'drain-answer').message).toMatch(
      /^drain\.answer 404 without http-check disable-on-404 in the backend: .*DOWN after fall checks.*; add http-check disable-on-404 to the backend and reload haproxy, or set drain\.answer 503$/,
    );
  });

  it('warns of a 404 soft stop whose persistent clients are not redispatched when the server stops', () => {
    const stuck = 'haproxy.cfg line 5: cookie SRV insert indirect nocache';
    const soft = { disableOn404: where, persistWithoutRedispatch: stuck };
    const model = timingModel(input({ settings: soft, drain: { answer: 404 } }));
    expect(only(model, 'drain-answer')).toEqual({
      id: 'drain-answer',
      severity: 'warning',
      ok: false,
      message: `drain.answer 404 with http-check disable-on-404 at ${where} and persistence at ${stuck} without option redispatch: a persistent client is still sent to the soft-stopped server after its services stop, and gets haproxy's 503 until fall checks mark it DOWN; add option redispatch (and retries 1 or more) to the backend and reload haproxy`,
    });
    // the 503 answer marks the server DOWN before the stop: nothing is sent to it then
    const hard = timingModel(input({ settings: soft }));
    expect(only(hard, 'drain-answer').ok).toBe(true);
  });

  it('holds for the 503 answer to disable-on-404, saying what 404 would do', () => {
    const model = timingModel(input({ settings: { disableOn404: where } }));
    expect(only(model, 'drain-answer')).toMatchObject({ ok: true });
    expect(only(model, 'drain-answer').message).toBe(
      `drain.answer 503 with http-check disable-on-404 at ${where}: the drain marks the server DOWN; drain.answer 404 would soft-stop it (NOLB): ok`,
    );
  });
});
