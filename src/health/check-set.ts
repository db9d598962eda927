import type { Clock } from '../clock.js';
import { schmittTrigger, type Health, type TriggerState } from '../hysteresis/index.js';
import { CheckRunner, type BackgroundCheck, type Outcome } from './check-runner.js';

/** What a probe says about one check: never a message, only a code. */
export interface CheckView {
  readonly name: string;
  readonly healthy: boolean;
  readonly critical: boolean;
  readonly latency_ms: number;
  readonly code: string;
  /** runs abandoned at their deadline that have still not settled; left out when none */
  readonly abandoned?: number;
}

export interface CheckSet {
  /**
   * runs every check once, concurrently; probes only ever read the result. A
   * call while a round runs joins it: a round lasts at most the longest deadline
   */
  round(): Promise<void>;
  views(): readonly CheckView[];
  /** 'unknown' until a critical check has run once */
  critical(): Health;
  /** any non-critical check counted as failing */
  degraded(): boolean;
}

interface Entry {
  readonly check: BackgroundCheck;
  readonly runner: CheckRunner;
  trigger: TriggerState;
  last: Outcome | undefined;
}

/**
 * The checks and their hysteresis: the shared Schmitt trigger, so the first
 * round sets a check's state directly and later ones need `failureThreshold`
 * failed rounds in a row to fail it and `successThreshold` passed rounds to
 * pass it again — one slow answer does not take a service out of rotation.
 */
export function createCheckSet(
  checks: readonly BackgroundCheck[],
  thresholds: { readonly failures: number; readonly successes: number },
  clock: Clock,
): CheckSet {
  const strategy = schmittTrigger(thresholds);
  const entries: Entry[] = checks.map((check) => ({
    check,
    runner: new CheckRunner(check, clock),
    trigger: strategy.initial(),
    last: undefined,
  }));
  const isCritical = (e: Entry): boolean => e.check.critical !== false;
  let current: Promise<void> | undefined;
  const runRound = async (): Promise<void> => {
    await Promise.all(
      entries.map(async (e) => {
        const outcome = await e.runner.run();
        e.last = outcome;
        e.trigger = strategy.observe(e.trigger, outcome.ok).state;
      }),
    );
  };
  return {
    round() {
      current ??= runRound().finally(() => (current = undefined));
      return current;
    },
    views: () =>
      entries.map((e) => ({
        name: e.check.name,
        healthy: e.trigger.health === 'healthy',
        critical: isCritical(e),
        latency_ms: Math.round(e.last?.latencyMs ?? 0),
        code: e.last?.code ?? 'PENDING',
        ...(e.runner.abandoned() > 0 && { abandoned: e.runner.abandoned() }),
      })),
    critical() {
      const healths = entries.filter(isCritical).map((e) => e.trigger.health);
      if (healths.includes('unknown')) return 'unknown';
      return healths.includes('unhealthy') ? 'unhealthy' : 'healthy';
    },
    degraded: () => entries.some((e) => !isCritical(e) && e.trigger.health === 'unhealthy'),
  };
}
