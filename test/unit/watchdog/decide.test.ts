import { describe, expect, it } from 'vitest';
import type { WatchdogConfig } from '../../../src/config/types.js';
import {
  schmittTrigger,
  type Thresholds,
  type TriggerState,
} from '../../../src/hysteresis/index.js';
import { decide, type Verdict } from '../../../src/watchdog/decide.js';
import { freshState, type WatchdogState } from '../../../src/watchdog/state.js';

const config: WatchdogConfig = {
  every: 60_000,
  failuresBeforeRestart: 4,
  successesBeforeHealthy: 2,
  startPeriod: 60_000,
  maxRestarts: 3,
  restartWindow: 30 * 60_000,
};

/** Feed one result per tick, a minute apart; collect what each tick decided. */
function run(
  results: readonly boolean[],
  start: WatchdogState = freshState(),
  cfg = config,
  thresholds?: Verdict['thresholds'],
) {
  let state = start;
  const ticks: { restart: readonly string[]; events: string[] }[] = [];
  results.forEach((ok, i) => {
    const verdicts: Verdict[] = [
      { service: 'app', ok, code: ok ? 'ok' : 'refused', ...(thresholds && { thresholds }) },
    ];
    const d = decide(state, verdicts, schmittTrigger, cfg, i * cfg.every);
    state = d.state;
    ticks.push({ restart: d.restart, events: d.events.map((e) => e.event) });
  });
  return { state, ticks, restartedAt: ticks.flatMap((t, i) => (t.restart.length ? [i + 1] : [])) };
}

describe('watchdog decisions', () => {
  it('restarts a dead service on exactly the 4th consecutive failing tick', () => {
    const { restartedAt } = run([true, false, false, false, false]);
    expect(restartedAt).toEqual([5]);
  });

  it('restarts after 4 failures even when the very first tick fails', () => {
    expect(run([false, false, false, false]).restartedAt).toEqual([4]);
  });

  it('never restarts a flapping service', () => {
    expect(
      run([true, false, true, false, true, false, true, false, false, true, false]).restartedAt,
    ).toEqual([]);
  });

  it('ignores failures within start_period of a restart, then needs a new full streak', () => {
    const cfg = { ...config, startPeriod: 150_000 };
    // restart at tick 4 (t=3m); ticks 5 and 6 are within 150 s and do not count
    const { restartedAt } = run(Array<boolean>(11).fill(false), freshState(), cfg);
    expect(restartedAt).toEqual([4, 10]);
  });

  it('gives up after max_restarts within the window, with one ERROR', () => {
    const cfg = { ...config, startPeriod: 1 };
    const { ticks, restartedAt } = run(Array<boolean>(30).fill(false), freshState(), cfg);
    expect(restartedAt).toEqual([4, 8, 12]);
    const gaveUp = ticks.flatMap((t) => t.events).filter((e) => e === 'watchdog.gave-up');
    expect(gaveUp).toHaveLength(1);
  });

  it('reports giving up once per unhealthy episode while the window is still full', () => {
    const cfg = { ...config, startPeriod: 1 };
    const pattern = [
      ...Array<boolean>(16).fill(false),
      true,
      true,
      ...Array<boolean>(6).fill(false),
    ];
    const { restartedAt, ticks } = run(pattern, freshState(), cfg);
    expect(restartedAt).toEqual([4, 8, 12]);
    const gaveUp = ticks.flatMap((t, i) => (t.events.includes('watchdog.gave-up') ? [i + 1] : []));
    expect(gaveUp).toEqual([16, 22]);
  });

  it('lets old restarts fall out of the restart window', () => {
    const cfg = { ...config, startPeriod: 1, restartWindow: 10 * 60_000 };
    const { restartedAt } = run(Array<boolean>(24).fill(false), freshState(), cfg);
    expect(restartedAt).toEqual([4, 8, 12, 16, 20, 24]);
  });

  it('takes a restart from the future (the clock stepped back a day) as one just now', () => {
    const ahead: WatchdogState = {
      version: 1,
      services: {
        app: {
          trigger: { health: 'unhealthy', failures: 0, successes: 0 },
          restarts: [24 * 3_600_000],
          gaveUp: false,
        },
      },
    };
    const { restartedAt, state } = run(Array<boolean>(50).fill(false), ahead);
    // start_period (one tick) forgives tick 1, then a full streak of 4: tick 5, and so on
    expect(restartedAt.slice(0, 2)).toEqual([5, 9]);
    expect(state.services.app?.restarts.every((t) => t <= 49 * config.every)).toBe(true);
  });

  it('logs transitions only: unhealthy, restart, recovered', () => {
    const { ticks } = run([true, true, false, false, false, false, false, true, true, true]);
    expect(ticks.map((t) => t.events)).toEqual([
      ['watchdog.recovered'],
      [],
      [],
      [],
      [],
      ['watchdog.unhealthy', 'watchdog.restart'],
      [],
      [],
      ['watchdog.recovered'],
      [],
    ]);
  });

  it('forgets services that are no longer configured', () => {
    const start: WatchdogState = {
      version: 1,
      services: {
        gone: {
          trigger: { health: 'healthy', failures: 0, successes: 3 },
          restarts: [],
          gaveUp: false,
        },
      },
    };
    expect(Object.keys(run([true], start).state.services)).toEqual(['app']);
  });

  describe("a check's own thresholds", () => {
    it('restart on its own failures_before_restart, not the watchdog’s', () => {
      const checkSays = { failuresBeforeRestart: 2 };
      expect(run([true, false, false], freshState(), config, checkSays).restartedAt).toEqual([3]);
      expect(run([true, false, false, false, false], freshState(), config).restartedAt).toEqual([
        5,
      ]);
    });

    it('count it healthy again after its own successes_before_healthy', () => {
      const fail4 = [true, false, false, false, false];
      const recoveredAt = (thresholds?: Verdict['thresholds']) =>
        run(
          [...fail4, true, true, true, true],
          freshState(),
          { ...config, startPeriod: 0 },
          thresholds,
        ).ticks.flatMap((t, i) => (t.events.includes('watchdog.recovered') ? [i + 1] : []));
      expect(recoveredAt()).toEqual([1, 7]);
      expect(recoveredAt({ successesBeforeHealthy: 4 })).toEqual([1, 9]);
    });

    it('leave the other threshold at the watchdog’s', () => {
      const { restartedAt } = run([false, false, false, false], freshState(), config, {
        successesBeforeHealthy: 5,
      });
      expect(restartedAt).toEqual([4]);
    });
  });

  it('says each transition in one line, naming the service and the check code', () => {
    const cfg = { ...config, startPeriod: 1, maxRestarts: 1, restartWindow: 90 * 60_000 };
    let state = freshState();
    const said: { level: string; event: string; message: string; service: string }[] = [];
    [true, false, false, false, false, true, true, false, false, false, false, false].forEach(
      (ok, i) => {
        const d = decide(
          state,
          [{ service: 'app', ok, code: ok ? 'ok' : 'refused' }],
          schmittTrigger,
          cfg,
          i * cfg.every,
        );
        state = d.state;
        said.push(...d.events);
      },
    );
    expect(said).toEqual([
      { level: 'info', event: 'watchdog.recovered', service: 'app', message: 'app: healthy' },
      {
        level: 'warn',
        event: 'watchdog.unhealthy',
        service: 'app',
        message: 'app: became unhealthy (refused)',
      },
      {
        level: 'warn',
        event: 'watchdog.restart',
        service: 'app',
        message: 'app: restarting after 4 consecutive failures (refused)',
      },
      { level: 'info', event: 'watchdog.recovered', service: 'app', message: 'app: recovered' },
      {
        level: 'warn',
        event: 'watchdog.unhealthy',
        service: 'app',
        message: 'app: became unhealthy (refused)',
      },
      {
        level: 'error',
        event: 'watchdog.gave-up',
        service: 'app',
        message:
          'app: still failing (refused) after 1 restarts within 90m: not restarting it again until it is healthy; look at it',
      },
    ]);
  });

  it('counts a pass within start_period: only failures are forgiven while a restart settles', () => {
    const cfg = { ...config, startPeriod: 150_000 };
    const { ticks } = run([true, false, false, false, false, true, true], freshState(), cfg);
    expect(ticks.map((t) => t.events)).toEqual([
      ['watchdog.recovered'],
      [],
      [],
      [],
      ['watchdog.unhealthy', 'watchdog.restart'],
      [],
      ['watchdog.recovered'],
    ]);
  });

  it('counts a failure exactly start_period after a restart', () => {
    const cfg = { ...config, startPeriod: 60_000 };
    // restart at tick 4; tick 5 is exactly 60 s later and counts: the next restart is at 8
    expect(run(Array<boolean>(8).fill(false), freshState(), cfg).restartedAt).toEqual([4, 8]);
  });

  it('drops a restart exactly restart_window old', () => {
    const cfg = { ...config, startPeriod: 1, maxRestarts: 1, restartWindow: 4 * 60_000 };
    // restarts at ticks 4 and 8: the first is exactly 4 minutes old at tick 8
    expect(run(Array<boolean>(8).fill(false), freshState(), cfg).restartedAt).toEqual([4, 8]);
  });

  it('restarts only what the strategy calls unhealthy, whatever the failure count', () => {
    const lenient = (t: Thresholds) => {
      const inner = schmittTrigger(t);
      return {
        ...inner,
        observe: (s: TriggerState, ok: boolean) => {
          const o = inner.observe(s, ok);
          return { state: { ...o.state, health: 'healthy' as const } };
        },
      };
    };
    let state = freshState();
    const restarts: string[] = [];
    for (let i = 0; i < 6; i++) {
      const d = decide(
        state,
        [{ service: 'app', ok: false, code: 'x' }],
        lenient,
        config,
        i * 60_000,
      );
      state = d.state;
      restarts.push(...d.restart);
    }
    expect(restarts).toEqual([]);
  });
});
