import { detectionBound } from './bounds.js';
import { formatDuration as fmt } from './duration.js';
import { nlbInvariants } from './nlb-invariants.js';
import type { Invariant, TimingInput } from './types.js';

/**
 * The services keep serving until the balancer can no longer send them
 * anything. Detection is bounded by the *start* of the last failing check
 * (interval × unhealthy_threshold); that check may take up to `timeout` to
 * fail, and until it has, the balancer still routes here. So the overlap must
 * be positive and at least one check timeout. Every request routed in that gap
 * would otherwise hit a stopped listener: a 502 or a reset.
 */
function drainBeforeStop({ settings, drain }: TimingInput): Invariant {
  const after =
    drain.method === 'deregister'
      ? 'after deregistration'
      : `after detection ${fmt(detectionBound(settings))} (${fmt(settings.interval)} × ${settings.unhealthyThreshold})`;
  const ok = drain.overlap > 0 && drain.overlap >= settings.timeout;
  const head = `overlap ${fmt(drain.overlap)} ${ok ? '≥' : '<'} check timeout ${fmt(settings.timeout)} ${after}`;
  const least = fmt(Math.max(settings.timeout, 1));
  return {
    id: 'drain-before-stop',
    severity: 'error',
    ok,
    message: ok
      ? `${head}: ok`
      : `${head}: the balancer may still route requests when the services stop; set drain.overlap to at least ${least}`,
  };
}

/** A request still running at SIGKILL is cut off mid-response; strict, because closing takes time too. */
function requestBeforeKill({ drain }: TimingInput): Invariant {
  const ok = drain.maxRequest < drain.stopTimeout;
  const head = `max_request ${fmt(drain.maxRequest)} ${ok ? '<' : '≥'} stop_timeout ${fmt(drain.stopTimeout)}`;
  return {
    id: 'request-before-kill',
    severity: 'error',
    ok,
    message: ok
      ? `${head}: ok`
      : `${head}: the longest request is killed before it ends; raise drain.stop_timeout above drain.max_request`,
  };
}

/** When the delay expires the balancer resets whatever is still in flight on the target. */
function deregistrationDelay({ settings, drain }: TimingInput): Invariant {
  const delay = settings.deregistrationDelay;
  if (delay === undefined) {
    return {
      id: 'deregistration-delay',
      severity: 'error',
      ok: false,
      message: `deregistration delay unknown, max_request ${fmt(drain.maxRequest)}: nothing bounds how long the balancer keeps in-flight requests; ${
        settings.deregistrationDelaySetting
          ? `set ${settings.deregistrationDelaySetting} to at least ${fmt(drain.maxRequest)}`
          : "run 'deploy check --live', set the delay in the health-check settings, or use drain.method health"
      }`,
    };
  }
  const ok = delay >= drain.maxRequest;
  const head = `deregistration delay ${fmt(delay)} ${ok ? '≥' : '<'} max_request ${fmt(drain.maxRequest)}`;
  return {
    id: 'deregistration-delay',
    severity: 'error',
    ok,
    message: ok
      ? `${head}: ok`
      : `${head}: the balancer resets requests still running when the delay ends; raise the deregistration delay to at least ${fmt(drain.maxRequest)}`,
  };
}

/**
 * A check that may last longer than the interval overlaps the next one (ALB
 * refuses it; HAProxy spaces checks from the end of the previous one), so
 * "the Nth check starts within N intervals" — the whole detection bound — fails.
 */
function checkTimeout({ settings }: TimingInput): Invariant {
  const ok = settings.timeout < settings.interval;
  const head = `check timeout ${fmt(settings.timeout)} ${ok ? '<' : '≥'} interval ${fmt(settings.interval)}`;
  return {
    id: 'check-timeout',
    severity: 'error',
    ok,
    message: ok
      ? `${head}: ok`
      : `${head}: checks overlap and the detection bound no longer holds; lower the health-check timeout below the interval`,
  };
}

/**
 * HAProxy's `on-marked-down shutdown-sessions` kills every session on a server
 * the checks mark down. With drain.method health the drain's 503 is what marks
 * it down: the sessions the overlap keeps serving die at once. With deregister,
 * or a 404 answer the backend reads as a soft stop (NOLB is not down), the
 * server is marked down only when its services stop, so it cuts off what a
 * graceful stop would have finished: a warning.
 */
function sessionsKept({ settings, drain }: TimingInput): Invariant | undefined {
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
function softStop({ settings, drain }: Pick<TimingInput, 'settings' | 'drain'>): boolean {
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
function drainAnswerRead({ settings, drain }: TimingInput): Invariant | undefined {
  const where = settings.disableOn404;
  if (where === undefined) return undefined;
  const id = 'drain-answer';
  if (where === false) {
    return drain.answer === 404
      ? {
          id,
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
      severity: 'warning',
      ok: false,
      message: `drain.answer 404 with http-check disable-on-404 at ${where} and persistence at ${stuck} without option redispatch: a persistent client is still sent to the soft-stopped server after its services stop, and gets haproxy's 503 until fall checks mark it DOWN; add option redispatch (and retries 1 or more) to the backend and reload haproxy`,
    };
  }
  return {
    id,
    severity: 'warning',
    ok: true,
    message:
      drain.answer === 404
        ? `drain.answer 404 with http-check disable-on-404 at ${where}: the first 404 soft-stops the server (NOLB: persistent clients still served until the services stop): ok`
        : `drain.answer 503 with http-check disable-on-404 at ${where}: the drain marks the server DOWN; drain.answer 404 would soft-stop it (NOLB): ok`,
  };
}

/** The invariants of one host's drain → stop sequence. */
export function drainInvariants(input: TimingInput): Invariant[] {
  const out = [drainBeforeStop(input), requestBeforeKill(input)];
  if (input.drain.method === 'deregister') out.push(deregistrationDelay(input));
  out.push(...nlbInvariants(input));
  out.push(checkTimeout(input));
  const sessions = sessionsKept(input);
  if (sessions) out.push(sessions);
  const answer = drainAnswerRead(input);
  if (answer) out.push(answer);
  return out;
}
