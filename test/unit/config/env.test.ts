import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { MemoryLog } from '../../../src/log.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

async function loadWith(env: NodeJS.ProcessEnv, text = minimal) {
  const log = new MemoryLog();
  const config = await loadConfig(await writeConfig(text), { env, log });
  const warnings = log.events.filter((e) => e.level === 'warn').map((e) => e.message);
  return { config, warnings, log };
}

describe('environment overrides', () => {
  it('apply a good value from the environment', async () => {
    const { config, warnings } = await loadWith({
      HANDOFF_WATCHDOG_EVERY: '30s',
      HANDOFF_FAILURES_BEFORE_RESTART: '6',
      HANDOFF_SUCCESSES_BEFORE_HEALTHY: '3',
      HANDOFF_START_PERIOD: '2m',
      HANDOFF_MAX_RESTARTS: '5',
      HANDOFF_RESTART_WINDOW: '1h',
      HANDOFF_VERIFY_TIMEOUT: '90s',
    });
    expect(config.watchdog).toEqual({
      every: 30_000,
      failuresBeforeRestart: 6,
      successesBeforeHealthy: 3,
      startPeriod: 120_000,
      maxRestarts: 5,
      restartWindow: 3_600_000,
    });
    expect(config.rollout.verifyTimeout).toBe(90_000);
    expect(warnings).toEqual([]);
  });

  it('override the value written in deploy.yml, not only the default', async () => {
    const { config } = await loadWith(
      { HANDOFF_MAX_RESTARTS: '9' },
      `${minimal}watchdog: { max_restarts: 2 }\n`,
    );
    expect(config.watchdog.maxRestarts).toBe(9);
  });

  it('keep the default and warn when a duration is garbage', async () => {
    const { config, warnings } = await loadWith({ HANDOFF_WATCHDOG_EVERY: 'often' });
    expect(config.watchdog.every).toBe(60_000);
    expect(warnings).toEqual([
      'HANDOFF_WATCHDOG_EVERY: "often" is not a duration; write it like 500ms, 15s, 2m, 1h or 1m30s; kept watchdog.every = 1m',
    ]);
  });

  it('keep the default and warn when a value is empty', async () => {
    const { config, warnings } = await loadWith({ HANDOFF_MAX_RESTARTS: '' });
    expect(config.watchdog.maxRestarts).toBe(3);
    expect(warnings).toEqual(['HANDOFF_MAX_RESTARTS: empty value; kept watchdog.max_restarts = 3']);
  });

  it('keep the configured value and warn when a count is negative', async () => {
    const { config, warnings } = await loadWith(
      { HANDOFF_FAILURES_BEFORE_RESTART: '-1' },
      `${minimal}watchdog: { failures_before_restart: 5 }\n`,
    );
    expect(config.watchdog.failuresBeforeRestart).toBe(5);
    expect(warnings).toEqual([
      'HANDOFF_FAILURES_BEFORE_RESTART: must be a positive whole number, got "-1"; kept watchdog.failures_before_restart = 5',
    ]);
  });

  it('keep the default and warn when a duration is zero or negative', async () => {
    const { config, warnings } = await loadWith({
      HANDOFF_START_PERIOD: '0s',
      HANDOFF_RESTART_WINDOW: '-30m',
    });
    expect(config.watchdog.startPeriod).toBe(60_000);
    expect(config.watchdog.restartWindow).toBe(1_800_000);
    expect(warnings).toEqual([
      'HANDOFF_START_PERIOD: must be positive, got "0s"; kept watchdog.start_period = 1m',
      'HANDOFF_RESTART_WINDOW: must be positive, got "-30m"; kept watchdog.restart_window = 30m',
    ]);
  });

  it('never echo a huge value in full', async () => {
    const { warnings, log } = await loadWith({ HANDOFF_VERIFY_TIMEOUT: 'x'.repeat(5_000) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.length).toBeLessThan(160);
    expect(log.events[0]?.fields).toEqual({
      variable: 'HANDOFF_VERIFY_TIMEOUT',
      key: 'rollout.verify_timeout',
      kept: '2m',
    });
  });

  it('leave everything alone when no HANDOFF_ variable is set', async () => {
    const { config, log } = await loadWith({ PATH: '/usr/bin' });
    expect(config.watchdog.every).toBe(60_000);
    expect(log.events).toEqual([]);
  });

  it('do not soften a bad value written in deploy.yml itself', async () => {
    expect(await problemsOf(`${minimal}watchdog: { every: often }\n`)).toEqual([
      'watchdog.every: "often" is not a duration; write it like 500ms, 15s, 2m, 1h or 1m30s (FILE:19:20)',
    ]);
  });
});
