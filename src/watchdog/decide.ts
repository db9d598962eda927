import type { CheckThresholds, WatchdogConfig } from '../config/types.js';
import type { HealthStrategy, Thresholds } from '../hysteresis/index.js';
import type { Level } from '../log.js';
import type { ServiceMemory, WatchdogState } from './state.js';

export interface Verdict {
  readonly service: string;
  readonly ok: boolean;
  /** the check's short code: why it failed */
  readonly code: string;
  /** the check's own overrides of the watchdog's thresholds */
  readonly thresholds?: CheckThresholds;
}

export interface Decision {
  readonly state: WatchdogState;
  readonly restart: readonly string[];
  /** transitions only: one line each */
  readonly events: readonly { level: Level; event: string; message: string; service: string }[];
}

/**
 * Pure: the check results of one tick → the next state, which services to
 * restart, and what to say. A service is restarted after
 * `failures_before_restart` consecutive failures; a failure within
 * `start_period` of a restart does not count; past `max_restarts` within
 * `restart_window` it gives up, once, until the service is healthy again.
 * A check may override both thresholds for its service.
 */
export function decide(
  previous: WatchdogState,
  verdicts: readonly Verdict[],
  strategyFor: (thresholds: Thresholds) => HealthStrategy,
  config: WatchdogConfig,
  now: number,
): Decision {
  const services: Record<string, ServiceMemory> = {};
  const restart: string[] = [];
  const events: { level: Level; event: string; message: string; service: string }[] = [];
  const say = (level: Level, event: string, service: string, message: string): void => {
    events.push({ level, event, service, message: `${service}: ${message}` });
  };

  for (const v of verdicts)
    services[v.service] = decideOne(previous.services[v.service], v, {
      strategyFor,
      config,
      now,
      say,
      restart: (service) => restart.push(service),
    });
  return { state: { ...previous, services }, restart, events };
}

interface OneService {
  readonly strategyFor: (thresholds: Thresholds) => HealthStrategy;
  readonly config: WatchdogConfig;
  readonly now: number;
  readonly say: (level: Level, event: string, service: string, message: string) => void;
  readonly restart: (service: string) => void;
}

/** One service's verdict → its next memory; a restart it calls for goes to `restart`. */
function decideOne(
  remembered: ServiceMemory | undefined,
  v: Verdict,
  ctx: OneService,
): ServiceMemory {
  const { strategyFor, config, now, say } = ctx;
  const thresholds: Thresholds = {
    failures: v.thresholds?.failuresBeforeRestart ?? config.failuresBeforeRestart,
    successes: v.thresholds?.successesBeforeHealthy ?? config.successesBeforeHealthy,
  };
  const strategy = strategyFor(thresholds);
  const before = remembered ?? {
    trigger: strategy.initial(),
    // Stryker disable next-line ArrayDeclaration: a non-number in here is dropped by the filter below
    restarts: [],
    gaveUp: false,
  };
  // a restart from the future (the clock stepped back) happened now at the latest: kept
  // ahead it would read as "just restarted" on every tick, and nothing would ever count
  const restarts = before.restarts
    .map((t) => Math.min(t, now))
    .filter((t) => now - t < config.restartWindow);
  const sinceRestart = restarts.length > 0 ? now - (restarts.at(-1) ?? 0) : Infinity;
  if (!v.ok && sinceRestart < config.startPeriod) return { ...before, restarts };
  const { state: trigger, transition } = strategy.observe(before.trigger, v.ok);
  let memory: ServiceMemory = { trigger, restarts, gaveUp: before.gaveUp };
  if (transition === 'became-unhealthy')
    say('warn', 'watchdog.unhealthy', v.service, `became unhealthy (${v.code})`);
  if (transition === 'became-healthy') {
    say(
      'info',
      'watchdog.recovered',
      v.service,
      before.trigger.health === 'unknown' ? 'healthy' : 'recovered',
    );
    memory = { ...memory, gaveUp: false };
  }
  const due = trigger.health === 'unhealthy' && trigger.failures >= thresholds.failures;
  return due && !memory.gaveUp ? restartOrGiveUp(memory, v, ctx) : memory;
}

/** A failure streak that is due: a restart, or past `max_restarts`, giving up (said once). */
function restartOrGiveUp(memory: ServiceMemory, v: Verdict, ctx: OneService): ServiceMemory {
  const { config, now, say } = ctx;
  const { trigger, restarts } = memory;
  if (restarts.length >= config.maxRestarts) {
    say(
      'error',
      'watchdog.gave-up',
      v.service,
      `still failing (${v.code}) after ${restarts.length} restarts within ${Math.round(config.restartWindow / 60_000)}m: not restarting it again until it is healthy; look at it`,
    );
    return { ...memory, gaveUp: true };
  }
  ctx.restart(v.service);
  say(
    'warn',
    'watchdog.restart',
    v.service,
    `restarting after ${trigger.failures} consecutive failures (${v.code})`,
  );
  // count the next streak from zero: another full streak earns another restart
  return { trigger: { ...trigger, failures: 0 }, restarts: [...restarts, now], gaveUp: false };
}
