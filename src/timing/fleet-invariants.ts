import { timeBack } from './bounds.js';
import { formatDuration as fmt } from './duration.js';
import type { Invariant, Timeline, TimingInput } from './types.js';

/**
 * A balancer whose targets are all unhealthy may fail open and send traffic to the
 * drained hosts anyway; the guard needs someone left to serve.
 */
function capacity({ hosts, rollout }: TimingInput, timeline: Timeline): Invariant {
  const serving = hosts - timeline.batchSize;
  const head = `${hosts} host${hosts === 1 ? '' : 's'} − batch ${timeline.batchSize} = ${serving} serving`;
  const verdict = (ok: boolean, message: string): Invariant => ({
    id: 'capacity',
    severity: 'error',
    ok,
    message,
  });
  if (rollout.allowDowntime)
    return verdict(
      true,
      `${head}, rollout.allow_downtime: true: ${serving === 0 ? 'nothing serves while a batch deploys (accepted)' : 'ok'}`,
    );
  if (rollout.minHealthy < 1 || serving < rollout.minHealthy) {
    const cmp =
      rollout.minHealthy < 1
        ? `${head}, min_healthy ${rollout.minHealthy}: nothing would keep serving during a batch`
        : `${head} < min_healthy ${rollout.minHealthy}: the capacity guard would block the first batch`;
    return verdict(
      false,
      `${cmp}; ${capacityAdvice(hosts, rollout.minHealthy, timeline.batchSize)}`,
    );
  }
  return verdict(true, `${head} ≥ min_healthy ${rollout.minHealthy}: ok`);
}

/**
 * Only advice that passes: min_healthy stays at least 1, so the batch can be at
 * most hosts − min_healthy; a fleet of one has no such batch, and is told so.
 */
function capacityAdvice(hosts: number, minHealthy: number, batch: number): string {
  if (hosts < 2)
    return 'one host cannot keep serving while it deploys: add a host, or set rollout.allow_downtime: true to accept the downtime';
  const min = Math.max(1, Math.min(minHealthy, hosts - 1));
  const set = [
    ...(minHealthy === min ? [] : [`rollout.min_healthy: ${min}`]),
    ...(batch > hosts - min ? [`rollout.batch: ${hosts - min}`] : []),
  ];
  return `set ${set.join(' and ')}${minHealthy >= 1 ? ', or add hosts' : ''}`;
}

/**
 * A service that closes an idle connection the balancer is about to reuse
 * turns that request into a 502 (Node's 5 s default behind a balancer's 60 s).
 */
function keepAlive({ services, settings }: TimingInput): Invariant[] {
  const idle = settings.idleTimeout;
  if (idle === undefined) return [];
  const out: Invariant[] = [];
  for (const service of services) {
    const keep = service.keepAliveTimeout;
    if (keep === undefined) continue;
    const ok = keep > idle;
    const head = `${service.name}: keep-alive ${fmt(keep)} ${ok ? '>' : '≤'} balancer idle timeout ${fmt(idle)}`;
    out.push({
      id: 'keep-alive',
      severity: 'error',
      ok,
      subject: service.name,
      message: ok
        ? `${head}: ok`
        : `${head}: the service closes connections the balancer still reuses (502s); set its keep-alive above ${fmt(idle)}`,
    });
  }
  return out;
}

/** Not a lost request, but a host out of rotation longer than planned is lost capacity. */
function timeBackInvariant({ settings, rollout }: TimingInput): Invariant {
  const back = timeBack(settings);
  const ok = back <= rollout.maxTimeBack;
  const head = `back in rotation after ${fmt(back)} (${fmt(settings.interval)} × ${settings.healthyThreshold}) ${ok ? '≤' : '>'} max_time_back ${fmt(rollout.maxTimeBack)}`;
  return {
    id: 'time-back',
    severity: 'warning',
    ok,
    message: ok
      ? `${head}: ok`
      : `${head}: lower the interval or healthy_threshold, or raise rollout.max_time_back`,
  };
}

/**
 * The first failing tick can land the moment the drain starts, so the Nth
 * comes (N − 1) ticks later; it must come after the host answers 200 again,
 * or a watchdog that missed the lock restarts a host mid-deploy. A check's
 * own failures_before_restart counts: the service restarted soonest decides.
 */
function watchdogVsDrain({ watchdog, services }: TimingInput, timeline: Timeline): Invariant {
  let failures = watchdog.failuresBeforeRestart;
  let from = 'watchdog.failures_before_restart';
  for (const s of services) {
    const own = s.check?.failuresBeforeRestart ?? failures;
    if (own < failures) {
      failures = own;
      from = `${s.name}'s check failures_before_restart`;
    }
  }
  const fires = (failures - 1) * watchdog.every;
  const ok = fires > timeline.unhealthyWindow;
  const who = from === 'watchdog.failures_before_restart' ? '' : ` (${from})`;
  const head = `watchdog restart ${fmt(fires)} after the first failure ((${failures} − 1) × ${fmt(watchdog.every)})${who} ${ok ? '>' : '≤'} drain-to-verified ${fmt(timeline.unhealthyWindow)}`;
  return {
    id: 'watchdog-vs-drain',
    severity: 'warning',
    ok,
    message: ok
      ? `${head}: ok`
      : `${head}: only the host lock keeps the watchdog from restarting a deploying host; raise ${from} or watchdog.every`,
  };
}

/** The invariants between the fleet, the balancer and the services. */
export function fleetInvariants(input: TimingInput, timeline: Timeline): Invariant[] {
  return [
    capacity(input, timeline),
    ...keepAlive(input),
    timeBackInvariant(input),
    watchdogVsDrain(input, timeline),
  ];
}
