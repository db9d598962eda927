import type { Invariant, TimingInput } from '../../timing/index.js';
import type { HaproxyHealthCheck } from './settings.js';

type Input = TimingInput<HaproxyHealthCheck>;

/**
 * HAProxy's `on-marked-down shutdown-sessions` kills every session on a server
 * the checks mark down. With drain.method health the drain's 503 is what marks
 * it down: the sessions the overlap keeps serving die at once. With deregister,
 * or a 404 answer the backend reads as a soft stop (NOLB is not down), the
 * server is marked down only when its services stop, so it cuts off what a
 * graceful stop would have finished: a warning.
 */
function sessionsKept({ settings, drain }: Input): Invariant | undefined {
  const where = settings.shutdownSessionsOnDown;
  if (where === undefined) return undefined;
  const drainMarksDown = drain.method === 'health' && !softStop({ settings, drain });
  const when = drainMarksDown
    ? "the drain's 503 marks the server down, and haproxy kills the sessions the overlap keeps serving"
    : 'the stopping services fail their checks, and haproxy kills the sessions a graceful stop would finish';
  return {
    id: 'sessions-kept',
    severity: drainMarksDown ? 'error' : 'warning',
    ok: false,
    message: `on-marked-down shutdown-sessions at ${where}: ${when}; remove on-marked-down shutdown-sessions there and reload haproxy`,
  };
}

/** drain.answer 404 to a backend whose config has `http-check disable-on-404`: the drain is a NOLB, not a DOWN */
function softStop({ settings, drain }: Pick<Input, 'settings' | 'drain'>): boolean {
  return drain.answer === 404 && typeof settings.disableOn404 === 'string';
}

/**
 * drain.answer against the backend's `http-check disable-on-404`, when the
 * config file was read. 404 without the line is a failed check: the server
 * goes DOWN after `fall` of them like a 503, and its persistent clients are
 * sent elsewhere: a warning, as the user asked for the soft stop and does not
 * get it. 404 with it soft-stops the server (NOLB) on the first 404; 503 with
 * it is a plain drain, the soft stop there if wanted. Both hold: ok lines.
 */
function drainAnswerRead({ settings, drain }: Input): Invariant | undefined {
  const where = settings.disableOn404;
  if (where === undefined) return undefined;
  const id = 'drain-answer';
  // its fix is in deploy.yml as often as in the backend: CI points at drain.answer
  const key = 'drain.answer';
  if (where === false) {
    return drain.answer === 404
      ? {
          id,
          key,
          severity: 'warning',
          ok: false,
          message:
            'drain.answer 404 without http-check disable-on-404 in the backend: haproxy counts the 404 as a failed check and marks the server DOWN after fall checks, as a 503; add http-check disable-on-404 to the backend and reload haproxy, or set drain.answer 503',
        }
      : undefined;
  }
  const stuck = drain.answer === 404 ? settings.persistWithoutRedispatch : undefined;
  if (stuck !== undefined) {
    return {
      id,
      key,
      severity: 'warning',
      ok: false,
      message: `drain.answer 404 with http-check disable-on-404 at ${where} and persistence at ${stuck} without option redispatch: a persistent client is still sent to the soft-stopped server after its services stop, and gets haproxy's 503 until fall checks mark it DOWN; add option redispatch (and retries 1 or more) to the backend and reload haproxy`,
    };
  }
  return {
    id,
    key,
    severity: 'warning',
    ok: true,
    message:
      drain.answer === 404
        ? `drain.answer 404 with http-check disable-on-404 at ${where}: the first 404 soft-stops the server (NOLB: persistent clients still served until the services stop): ok`
        : `drain.answer 503 with http-check disable-on-404 at ${where}: the drain marks the server DOWN; drain.answer 404 would soft-stop it (NOLB): ok`,
  };
}

/** What HAProxy's own configuration (read with `config:`) says about a drain. */
export function haproxyInvariants(input: Input): Invariant[] {
  return [sessionsKept(input), drainAnswerRead(input)].filter(
    (i): i is Invariant => i !== undefined,
  );
}
