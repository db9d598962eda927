import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { PROBE_GRACE_MS, ProbeTimeout, pollUntil } from '../../../src/rollout/poll.js';
import { FakeClock } from '../../support/fake-clock.js';

describe('pollUntil', () => {
  it('returns as soon as the condition holds, with the time it took', async () => {
    const clock = new FakeClock();
    const answers = [false, false, true];
    const r = await pollUntil(
      () => Promise.resolve(answers.shift() ?? true),
      (v) => v,
      {
        clock,
        every: 1000,
        within: 10_000,
      },
    );
    expect(r).toEqual({ met: true, value: true, elapsed: 2000, probes: 3 });
  });

  it('gives up at the bound, never sleeping past it', async () => {
    const clock = new FakeClock();
    const r = await pollUntil(
      () => Promise.resolve(false),
      (v) => v,
      { clock, every: 3000, within: 10_000 },
    );
    expect(r).toMatchObject({ met: false, elapsed: 10_000, probes: 5 });
    expect(clock.sleeps).toEqual([3000, 3000, 3000, 1000]);
  });

  it('stops when the signal aborts', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    let n = 0;
    const run = pollUntil(
      () => {
        n += 1;
        if (n === 2) controller.abort(new Error('interrupted'));
        return Promise.resolve(false);
      },
      (v) => v,
      { clock, every: 1000, within: 60_000, signal: controller.signal },
    );
    await expect(run).rejects.toThrow('interrupted');
  });
});

/** a clock whose sleeps end only when the test fires them (or their signal aborts) */
function manualTimers() {
  const timers: { ms: number; fire: () => void; aborted: boolean }[] = [];
  const clock: Clock = {
    now: () => 0,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        const timer = { ms, fire: resolve, aborted: false };
        timers.push(timer);
        signal?.addEventListener('abort', () => {
          timer.aborted = true;
          reject(signal.reason as Error);
        });
      }),
  };
  return { clock, timers };
}

describe('pollUntil with a probe that hangs (a balancer API whose packets are dropped)', () => {
  it('fails with ProbeTimeout once the bound and its grace pass, not when the client gives up', async () => {
    const { clock: probeClock, timers } = manualTimers();
    const poll = pollUntil(
      () => new Promise<boolean>(() => undefined),
      (v) => v,
      { clock: new FakeClock(), every: 1000, within: 10_000, probeClock },
    );
    await Promise.resolve();
    expect(timers.map((t) => t.ms)).toEqual([10_000 + PROBE_GRACE_MS]);
    timers[0]?.fire();
    const failure = await poll.catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProbeTimeout);
    expect((failure as Error).message).toBe('no answer within 15s');
  });

  it('an answer first wins; its timer is stopped; each later probe gets what is left of the bound', async () => {
    const { clock: probeClock, timers } = manualTimers();
    const answers = [false, false, true];
    const r = await pollUntil(
      () => Promise.resolve(answers.shift() ?? true),
      (v) => v,
      { clock: new FakeClock(), every: 4000, within: 10_000, probeClock },
    );
    expect(r).toMatchObject({ met: true, probes: 3 });
    expect(timers.map((t) => t.ms)).toEqual([15_000, 11_000, 7_000]);
    expect(timers.every((t) => t.aborted)).toBe(true);
  });

  it('an interrupt during a hung probe does not stop its timer: the probe still times out', async () => {
    const { clock: probeClock, timers } = manualTimers();
    const abort = new AbortController();
    const poll = pollUntil(
      () => new Promise<boolean>(() => undefined),
      (v) => v,
      { clock: new FakeClock(), every: 1000, within: 10_000, probeClock, signal: abort.signal },
    );
    await Promise.resolve();
    abort.abort(new Error('SIGINT'));
    expect(timers[0]?.aborted).toBe(false);
    timers[0]?.fire();
    await expect(poll).rejects.toBeInstanceOf(ProbeTimeout);
  });
});
