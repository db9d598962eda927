import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../../src/rollout/poll.js';
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
