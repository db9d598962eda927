import type { Log } from '../log.js';
import { cronPlan } from './cron-every.js';
import { formatDuration, readDuration, show } from './kit/duration.js';
import type { Config, RolloutConfig, WatchdogConfig } from './types.js';

/**
 * Overrides that arrive from outside deploy.yml (a cron line, a ConfigMap).
 * Nobody reviews those with the file, and a watchdog that refuses to start
 * because of a stray `HANDOFF_MAX_RESTARTS=` is worse than one that keeps its
 * configured value, so a bad value is a warning and the value is kept.
 */

type WatchdogKey = keyof WatchdogConfig;
type Parse = (text: string) => { ok: true; value: number } | { ok: false; reason: string };

interface Override {
  readonly variable: string;
  /** the key it overrides, as written in deploy.yml */
  readonly key: string;
  readonly parse: Parse;
  readonly format: (value: number) => string;
  readonly get: (config: Config) => number;
  readonly set: (config: Config, value: number) => Config;
}

const durationValue: Parse = (text) => {
  const parsed = readDuration(text);
  return parsed.ok ? { ok: true, value: parsed.ms } : parsed;
};

const countValue: Parse = (text) => {
  const value = Number(text.trim());
  if (/^\s*\d+\s*$/.test(text) && Number.isSafeInteger(value) && value > 0)
    return { ok: true, value };
  return { ok: false, reason: `must be a positive whole number, got ${show(text)}` };
};

/** the same rule as deploy.yml's watchdog.every: a value cron cannot run evenly is kept out */
const everyValue: Parse = (text) => {
  const parsed = durationValue(text);
  if (!parsed.ok) return parsed;
  const plan = cronPlan(parsed.value);
  return plan.ok ? parsed : plan;
};

function watchdog(
  variable: string,
  key: WatchdogKey,
  yamlKey: string,
  isDuration: boolean,
  parse: Parse = isDuration ? durationValue : countValue,
): Override {
  return {
    variable,
    key: `watchdog.${yamlKey}`,
    parse,
    format: isDuration ? formatDuration : String,
    get: (config) => config.watchdog[key],
    set: (config, value) => ({ ...config, watchdog: { ...config.watchdog, [key]: value } }),
  };
}

export const envOverrides: readonly Override[] = [
  watchdog('HANDOFF_WATCHDOG_EVERY', 'every', 'every', true, everyValue),
  watchdog(
    'HANDOFF_FAILURES_BEFORE_RESTART',
    'failuresBeforeRestart',
    'failures_before_restart',
    false,
  ),
  watchdog(
    'HANDOFF_SUCCESSES_BEFORE_HEALTHY',
    'successesBeforeHealthy',
    'successes_before_healthy',
    false,
  ),
  watchdog('HANDOFF_START_PERIOD', 'startPeriod', 'start_period', true),
  watchdog('HANDOFF_MAX_RESTARTS', 'maxRestarts', 'max_restarts', false),
  watchdog('HANDOFF_RESTART_WINDOW', 'restartWindow', 'restart_window', true),
  {
    variable: 'HANDOFF_VERIFY_TIMEOUT',
    key: 'rollout.verify_timeout',
    parse: durationValue,
    format: formatDuration,
    get: (config) => config.rollout.verifyTimeout,
    set: (config, verifyTimeout): Config => ({
      ...config,
      rollout: { ...config.rollout, verifyTimeout } satisfies RolloutConfig,
    }),
  },
];

/** Applies the HANDOFF_* variables that are set; a bad one is a `config.env` warning. */
export function applyEnvOverrides(config: Config, env: NodeJS.ProcessEnv, log: Log): Config {
  let result = config;
  for (const override of envOverrides) {
    const text = env[override.variable];
    if (text === undefined) continue;
    const parsed =
      text.trim() === '' ? { ok: false as const, reason: 'empty value' } : override.parse(text);
    const kept = override.format(override.get(result));
    if (!parsed.ok) {
      log.emit({
        level: 'warn',
        event: 'config.env',
        message: `${override.variable}: ${parsed.reason}; kept ${override.key} = ${kept}`,
        fields: { variable: override.variable, key: override.key, kept },
      });
      continue;
    }
    result = override.set(result, parsed.value);
    log.emit({
      level: 'debug',
      event: 'config.env',
      message: `${override.variable} sets ${override.key} = ${override.format(parsed.value)} (was ${kept})`,
      fields: { variable: override.variable, key: override.key },
    });
  }
  return result;
}
