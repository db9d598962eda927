import { detectionBound } from './bounds.js';
import { formatDuration as fmt } from './duration.js';
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
 * A check that may last longer than the interval overlaps the next one (some
 * balancers refuse it, others space checks from the end of the previous one), so
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

/** The invariants of one host's drain → stop sequence that hold whatever the balancer (a kind adds its own: BalancerKind.invariants). */
export function drainInvariants(input: TimingInput): Invariant[] {
  const out = [drainBeforeStop(input), requestBeforeKill(input)];
  if (input.drain.method === 'deregister') out.push(deregistrationDelay(input));
  out.push(checkTimeout(input));
  return out;
}
