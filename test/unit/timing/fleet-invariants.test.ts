import { describe, expect, it } from 'vitest';
import { timingModel } from '../../../src/timing/model.js';
import { input, only, s } from './fixture.js';

describe('capacity', () => {
  it('holds when the hosts left serving equal min_healthy', () => {
    expect(only(timingModel(input({ hosts: 2 })), 'capacity')).toEqual({
      id: 'capacity',
      severity: 'error',
      ok: true,
      message: '2 hosts − batch 1 = 1 serving ≥ min_healthy 1: ok',
    });
  });

  it('fails when one host fewer than min_healthy is left serving', () => {
    const model = timingModel(input({ hosts: 3, rollout: { minHealthy: 3 } }));
    expect(only(model, 'capacity')).toEqual({
      id: 'capacity',
      severity: 'error',
      ok: false,
      message:
        '3 hosts − batch 1 = 2 serving < min_healthy 3: the capacity guard would block the first batch; set rollout.min_healthy: 2, or add hosts',
    });
  });

  it('fails when min_healthy is zero however many hosts serve', () => {
    const model = timingModel(input({ hosts: 10, rollout: { minHealthy: 0 } }));
    expect(only(model, 'capacity')).toEqual({
      id: 'capacity',
      severity: 'error',
      ok: false,
      message:
        '10 hosts − batch 1 = 9 serving, min_healthy 0: nothing would keep serving during a batch; set rollout.min_healthy: 1',
    });
  });

  it('tells a one-host fleet to add a host or allow downtime, never to lower what cannot go lower', () => {
    expect(only(timingModel(input({ hosts: 1 })), 'capacity')).toMatchObject({
      ok: false,
      message:
        '1 host − batch 1 = 0 serving < min_healthy 1: the capacity guard would block the first batch; one host cannot keep serving while it deploys: add a host, or set rollout.allow_downtime: true to accept the downtime',
    });
  });

  it('passes a one-host fleet that says rollout.allow_downtime: true', () => {
    const model = timingModel(input({ hosts: 1, rollout: { allowDowntime: true } }));
    expect(only(model, 'capacity')).toMatchObject({
      ok: true,
      message:
        '1 host − batch 1 = 0 serving, rollout.allow_downtime: true: nothing serves while a batch deploys (accepted)',
    });
  });

  it('with rollout.allow_downtime: true and hosts left serving, says ok', () => {
    const model = timingModel(input({ hosts: 3, rollout: { allowDowntime: true } }));
    expect(only(model, 'capacity')).toMatchObject({
      ok: true,
      message: '3 hosts − batch 1 = 2 serving, rollout.allow_downtime: true: ok',
    });
  });

  it('advises two hosts a batch of one, not what it tells a single host', () => {
    const model = timingModel(input({ hosts: 2, rollout: { batch: { kind: 'count', count: 2 } } }));
    expect(only(model, 'capacity')?.message).toBe(
      '2 hosts − batch 2 = 0 serving < min_healthy 1: the capacity guard would block the first batch; set rollout.batch: 1, or add hosts',
    );
  });

  it('names both keys when both must change', () => {
    const model = timingModel(
      input({ hosts: 3, rollout: { minHealthy: 3, batch: { kind: 'count', count: 3 } } }),
    );
    expect(only(model, 'capacity')?.message).toBe(
      '3 hosts − batch 3 = 0 serving < min_healthy 3: the capacity guard would block the first batch; set rollout.min_healthy: 2 and rollout.batch: 1, or add hosts',
    );
  });

  it('advises a batch that leaves min_healthy serving when the batch is the problem', () => {
    const model = timingModel(input({ hosts: 3, rollout: { batch: { kind: 'count', count: 3 } } }));
    expect(only(model, 'capacity')?.message).toBe(
      '3 hosts − batch 3 = 0 serving < min_healthy 1: the capacity guard would block the first batch; set rollout.batch: 2, or add hosts',
    );
  });

  it('resolves a percent batch against the hosts, rounding down', () => {
    const model = timingModel(
      input({ hosts: 10, rollout: { batch: { kind: 'percent', percent: 25 }, minHealthy: 8 } }),
    );
    expect(only(model, 'capacity').message).toBe(
      '10 hosts − batch 2 = 8 serving ≥ min_healthy 8: ok',
    );
  });

  it('drains at least one host for a percent that rounds down to zero', () => {
    const model = timingModel(
      input({ hosts: 3, rollout: { batch: { kind: 'percent', percent: 10 } } }),
    );
    expect(only(model, 'capacity').message).toBe(
      '3 hosts − batch 1 = 2 serving ≥ min_healthy 1: ok',
    );
  });

  it('fails a batch as large as the fleet', () => {
    const model = timingModel(input({ hosts: 2, rollout: { batch: { kind: 'count', count: 2 } } }));
    expect(only(model, 'capacity').ok).toBe(false);
  });
});

describe('keep-alive', () => {
  it('holds for a keep-alive one millisecond above the idle timeout', () => {
    const model = timingModel(
      input({ services: [{ name: 'gateway', keepAliveTimeout: s(60) + 1 }] }),
    );
    expect(only(model, 'keep-alive')).toEqual({
      id: 'keep-alive',
      severity: 'error',
      ok: true,
      subject: 'gateway',
      message: 'gateway: keep-alive 1m1ms > balancer idle timeout 1m: ok',
    });
  });

  it('fails for a keep-alive equal to the idle timeout', () => {
    const model = timingModel(input({ services: [{ name: 'gateway', keepAliveTimeout: s(60) }] }));
    expect(only(model, 'keep-alive')).toEqual({
      id: 'keep-alive',
      severity: 'error',
      ok: false,
      subject: 'gateway',
      message:
        'gateway: keep-alive 1m ≤ balancer idle timeout 1m: the service closes connections the balancer still reuses (502s); set its keep-alive above 1m',
    });
  });

  it('catches the Node 5 s default behind an ALB', () => {
    const model = timingModel(input({ services: [{ name: 'api', keepAliveTimeout: s(5) }] }));
    expect(only(model, 'keep-alive').ok).toBe(false);
  });

  it('checks every service that declares a keep-alive and only those', () => {
    const model = timingModel(
      input({
        services: [
          { name: 'a', keepAliveTimeout: s(65) },
          { name: 'worker' },
          { name: 'b', keepAliveTimeout: s(5) },
        ],
      }),
    );
    const checks = model.invariants.filter((i) => i.id === 'keep-alive');
    expect(checks.map((i) => [i.subject, i.ok])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });

  it('is not checked when the balancer idle timeout is unknown', () => {
    const model = timingModel(input({ settings: { idleTimeout: undefined } }));
    expect(model.invariants.map((i) => i.id)).toEqual([
      'drain-before-stop',
      'request-before-kill',
      'check-timeout',
      'capacity',
      'time-back',
      'watchdog-vs-drain',
    ]);
  });
});

describe('time-back', () => {
  it('holds when the time back equals max_time_back', () => {
    const model = timingModel(input({ rollout: { maxTimeBack: s(10) } }));
    expect(only(model, 'time-back')).toEqual({
      id: 'time-back',
      severity: 'warning',
      ok: true,
      message: 'back in rotation after 10s (5s × 2) ≤ max_time_back 10s: ok',
    });
  });

  it('warns when the time back is one millisecond over max_time_back', () => {
    const model = timingModel(input({ rollout: { maxTimeBack: s(10) - 1 } }));
    expect(only(model, 'time-back')).toEqual({
      id: 'time-back',
      severity: 'warning',
      ok: false,
      message:
        'back in rotation after 10s (5s × 2) > max_time_back 9s999ms: lower the interval or healthy_threshold, or raise rollout.max_time_back',
    });
  });

  it('does not count slow start as time out of rotation', () => {
    const model = timingModel(
      input({ settings: { slowStart: s(60) }, rollout: { maxTimeBack: s(10) } }),
    );
    expect(only(model, 'time-back').ok).toBe(true);
  });
});

describe('watchdog-vs-drain', () => {
  // drain to verified in the fixture: 10s + 15s + 150s + 120s = 4m55s
  const window = s(295);

  it('holds when the restart comes one millisecond after the host answers again', () => {
    const model = timingModel(input({ watchdog: { failuresBeforeRestart: 2, every: window + 1 } }));
    expect(only(model, 'watchdog-vs-drain')).toEqual({
      id: 'watchdog-vs-drain',
      severity: 'warning',
      ok: true,
      message:
        'watchdog restart 4m55s1ms after the first failure ((2 − 1) × 4m55s1ms) > drain-to-verified 4m55s: ok',
    });
  });

  it('warns when the restart could come exactly as the host answers again', () => {
    const model = timingModel(input({ watchdog: { failuresBeforeRestart: 2, every: window } }));
    expect(only(model, 'watchdog-vs-drain')).toEqual({
      id: 'watchdog-vs-drain',
      severity: 'warning',
      ok: false,
      message:
        'watchdog restart 4m55s after the first failure ((2 − 1) × 4m55s) ≤ drain-to-verified 4m55s: only the host lock keeps the watchdog from restarting a deploying host; raise watchdog.failures_before_restart or watchdog.every',
    });
  });

  it('warns for the default watchdog against the default drain', () => {
    // 4 failures a minute apart can all land inside a 4m55s drain-to-verified window
    const model = timingModel(input({ watchdog: { failuresBeforeRestart: 4, every: s(60) } }));
    expect(only(model, 'watchdog-vs-drain').ok).toBe(false);
  });

  describe("with a check's own failures_before_restart", () => {
    const watchdog = { failuresBeforeRestart: 3, every: window };
    const services = (api?: number, worker?: number) => [
      { name: 'api', ...(api !== undefined && { check: { failuresBeforeRestart: api } }) },
      { name: 'worker', ...(worker !== undefined && { check: { failuresBeforeRestart: worker } }) },
    ];

    it('takes the service restarted soonest, and names it', () => {
      const model = timingModel(input({ watchdog, services: services(4, 2) }));
      expect(only(model, 'watchdog-vs-drain')).toEqual({
        id: 'watchdog-vs-drain',
        severity: 'warning',
        ok: false,
        message:
          "watchdog restart 4m55s after the first failure ((2 − 1) × 4m55s) (worker's check failures_before_restart) ≤ drain-to-verified 4m55s: only the host lock keeps the watchdog from restarting a deploying host; raise worker's check failures_before_restart or watchdog.every",
      });
    });

    it('keeps the watchdog’s when every override restarts later', () => {
      const model = timingModel(input({ watchdog, services: services(5, undefined) }));
      expect(only(model, 'watchdog-vs-drain')).toEqual({
        id: 'watchdog-vs-drain',
        severity: 'warning',
        ok: true,
        message:
          'watchdog restart 9m50s after the first failure ((3 − 1) × 4m55s) > drain-to-verified 4m55s: ok',
      });
    });

    it('keeps the watchdog’s when an override equals it', () => {
      const model = timingModel(input({ watchdog, services: services(3, 3) }));
      expect(only(model, 'watchdog-vs-drain').message).toBe(
        'watchdog restart 9m50s after the first failure ((3 − 1) × 4m55s) > drain-to-verified 4m55s: ok',
      );
    });

    it('takes the soonest however the services are ordered', () => {
      const model = timingModel(input({ watchdog, services: services(2, 4) }));
      expect(only(model, 'watchdog-vs-drain').message).toContain(
        "((2 − 1) × 4m55s) (api's check failures_before_restart)",
      );
    });
  });
});
