import { describe, expect, it } from 'vitest';
import { MAX_DURATION_MS, timerMs } from '../../../src/config/kit/duration.js';
import { drainLease } from '../../../src/rollout/host-actions.js';
import { rollbackBudgetMs, stepBounds } from '../../../src/timing/step-bounds.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import { testConfig } from '../../support/config.js';
import { fleet } from '../../support/rollout-fleet.js';

// each duration within its cap (576h), their sums past what a timer holds
const huge = () => {
  const base = testConfig();
  return testConfig({
    drain: { ...base.drain, stopTimeout: MAX_DURATION_MS },
    rollout: { ...base.rollout, verifyTimeout: 22 * 3_600_000 },
  });
};

describe('waits built from sums of durations', () => {
  it('are clamped to what a timer holds', () => {
    expect(timerMs(MAX_DURATION_MS * 3)).toBe(MAX_DURATION_MS);
    expect(timerMs(1500)).toBe(1500);
    const f = fleet(huge());
    expect(drainLease(f.deps, 60_000, 60_000)).toBe(MAX_DURATION_MS);
    expect(rollbackBudgetMs(stepBounds(huge(), { awaitOut: 60_000, awaitIn: 60_000 }))).toBe(
      MAX_DURATION_MS,
    );
    // within reach, the sum itself: the whole handshake and a minute
    const small = testConfig();
    expect(rollbackBudgetMs(stepBounds(small, { awaitOut: 1000, awaitIn: 2000 }))).toBe(
      1000 +
        small.drain.overlap +
        small.drain.stopTimeout +
        small.rollout.verifyTimeout +
        2000 +
        60_000,
    );
  });

  it('a rollback whose budget sums past a timer still runs to the end', async () => {
    const f = fleet(huge());
    f.host(1).bad.add('r2');
    const result = await rollout(f.deps, { release: 'r2', dryRun: false, rollback: true });
    expect(result.hosts[0]).toMatchObject({ result: 'rolled-back', leftDrained: false });
    expect(f.host(1).release).toBe('r1');
  });
});
