import { describe, expect, it } from 'vitest';
import { haproxyInvariants } from '../../../src/balancer/haproxy/invariants.js';
import { timingModel } from '../../../src/timing/model.js';
import type { TimingInput } from '../../../src/timing/types.js';
import type { HaproxyHealthCheck } from '../../../src/balancer/haproxy/settings.js';
import { input as anyInput, only, s } from '../timing/fixture.js';

const input = anyInput<HaproxyHealthCheck>;

/** the model of one HAProxy balancer: the shared invariants and the kind's own */
const haproxy = (i: TimingInput<HaproxyHealthCheck>) => timingModel(i, haproxyInvariants);

describe('sessions-kept', () => {
  const where = '/etc/haproxy/haproxy.cfg line 12: default-server on-marked-down shutdown-sessions';

  it("is not there when the balancer's config says nothing of it", () => {
    expect(haproxy(input()).invariants.map((i) => i.id)).not.toContain('sessions-kept');
  });

  it("fails as an error with drain.method health: the drain's 503 kills the sessions the overlap serves", () => {
    const model = haproxy(input({ settings: { shutdownSessionsOnDown: where } }));
    expect(only(model, 'sessions-kept')).toEqual({
      id: 'sessions-kept',
      severity: 'error',
      ok: false,
      message: `on-marked-down shutdown-sessions at ${where}: the drain's 503 marks the server down, and haproxy kills the sessions the overlap keeps serving; remove on-marked-down shutdown-sessions there and reload haproxy`,
    });
  });

  it('warns with drain.method deregister: only the stop marks the server down', () => {
    const model = haproxy(
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
    const model = haproxy(input({ settings: soft, drain: { answer: 404 } }));
    expect(only(model, 'sessions-kept')).toMatchObject({ severity: 'warning', ok: false });
    expect(only(model, 'sessions-kept').message).toContain(
      'the stopping services fail their checks',
    );
  });

  it('fails as an error with the 503 answer to a backend with disable-on-404: only a 404 is a soft stop', () => {
    const soft = { shutdownSessionsOnDown: where, disableOn404: 'haproxy.cfg line 9' };
    const model = haproxy(input({ settings: soft, drain: { answer: 503 } }));
    expect(only(model, 'sessions-kept')).toMatchObject({ severity: 'error', ok: false });
  });

  it('fails as an error with a 404 answer to a backend without disable-on-404: the 404 marks it down', () => {
    const hard = { shutdownSessionsOnDown: where, disableOn404: false as const };
    const model = haproxy(input({ settings: hard, drain: { answer: 404 } }));
    expect(only(model, 'sessions-kept')).toMatchObject({ severity: 'error', ok: false });
  });
});

describe('drain-answer', () => {
  const where = '/etc/haproxy/haproxy.cfg line 7: http-check disable-on-404';
  const ids = (m: ReturnType<typeof timingModel>) => m.invariants.map((i) => i.id);

  it('is not there when no config file was read, or 503 meets a backend without the line', () => {
    expect(ids(haproxy(input()))).not.toContain('drain-answer');
    expect(ids(haproxy(input({ drain: { answer: 404 } })))).not.toContain('drain-answer');
    expect(ids(haproxy(input({ settings: { disableOn404: false } })))).not.toContain(
      'drain-answer',
    );
  });

  it('holds for a 404 answer to a backend with disable-on-404, naming its line', () => {
    const model = haproxy(input({ settings: { disableOn404: where }, drain: { answer: 404 } }));
    expect(only(model, 'drain-answer')).toEqual({
      id: 'drain-answer',
      key: 'drain.answer',
      severity: 'warning',
      ok: true,
      message: `drain.answer 404 with http-check disable-on-404 at ${where}: the first 404 soft-stops the server (NOLB: persistent clients still served until the services stop): ok`,
    });
  });

  it('warns of a 404 answer to a backend without disable-on-404: a failed check, not a soft stop', () => {
    const model = haproxy(input({ settings: { disableOn404: false }, drain: { answer: 404 } }));
    expect(only(model, 'drain-answer')).toMatchObject({ severity: 'warning', ok: false });
    expect(only(model, 'drain-answer').message).toMatch(
      /^drain\.answer 404 without http-check disable-on-404 in the backend: .*DOWN after fall checks.*; add http-check disable-on-404 to the backend and reload haproxy, or set drain\.answer 503$/,
    );
  });

  it('warns of a 404 soft stop whose persistent clients are not redispatched when the server stops', () => {
    const stuck = 'haproxy.cfg line 5: cookie SRV insert indirect nocache';
    const soft = { disableOn404: where, persistWithoutRedispatch: stuck };
    const model = haproxy(input({ settings: soft, drain: { answer: 404 } }));
    expect(only(model, 'drain-answer')).toEqual({
      id: 'drain-answer',
      key: 'drain.answer',
      severity: 'warning',
      ok: false,
      message: `drain.answer 404 with http-check disable-on-404 at ${where} and persistence at ${stuck} without option redispatch: a persistent client is still sent to the soft-stopped server after its services stop, and gets haproxy's 503 until fall checks mark it DOWN; add option redispatch (and retries 1 or more) to the backend and reload haproxy`,
    });
    // the 503 answer marks the server DOWN before the stop: nothing is sent to it then
    const hard = haproxy(input({ settings: soft }));
    expect(only(hard, 'drain-answer').ok).toBe(true);
  });

  it('holds for the 503 answer to disable-on-404, saying what 404 would do', () => {
    const model = haproxy(input({ settings: { disableOn404: where } }));
    expect(only(model, 'drain-answer')).toMatchObject({ ok: true });
    expect(only(model, 'drain-answer').message).toBe(
      `drain.answer 503 with http-check disable-on-404 at ${where}: the drain marks the server DOWN; drain.answer 404 would soft-stop it (NOLB): ok`,
    );
  });
});
