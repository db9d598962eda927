import { describe, expect, it } from 'vitest';
import { MAX_DURATION_MS } from '../../../src/config/kit/duration.js';
import type { CheckConfig } from '../../../src/config/types.js';
import {
  BOUNDED_STEPS,
  drainLeaseMs,
  hostWindowMs,
  rollbackBudgetMs,
  stepBounds,
  WARM_AFTER_MS,
  warmBoundMs,
} from '../../../src/timing/step-bounds.js';
import { testConfig } from '../../support/config.js';

const config = () => {
  const base = testConfig();
  return {
    drain: { ...base.drain, overlap: 2_000, stopTimeout: 30_000 },
    rollout: { ...base.rollout, verifyTimeout: 40_000 },
  };
};
const waits = { awaitOut: 11_000, awaitIn: 17_000 };

describe('each step’s bound, the one source', () => {
  it('is the balancer’s waits and the configured durations, in the handshake’s order', () => {
    const bounds = stepBounds(config(), waits);
    expect(BOUNDED_STEPS.map((s) => [s, bounds[s]])).toEqual([
      ['await-out', 11_000],
      ['overlap', 2_000],
      ['stop', 30_000],
      ['verify', 40_000],
      ['await-in', 17_000],
      ['confirm', 40_000],
    ]);
    expect(Object.keys(bounds).sort()).toEqual([...BOUNDED_STEPS].sort());
  });

  it('sums to the host window; the lease is twice it; the rollback budget is it less confirm, and a minute', () => {
    const bounds = stepBounds(config(), waits);
    expect(hostWindowMs(bounds)).toBe(140_000);
    expect(drainLeaseMs(bounds)).toBe(280_000);
    expect(rollbackBudgetMs(bounds)).toBe(140_000 - 40_000 + 60_000);
  });

  it('holds the lease and the budget within what a timer holds', () => {
    const huge = stepBounds(config(), { awaitOut: MAX_DURATION_MS, awaitIn: 0 });
    expect(drainLeaseMs(huge)).toBe(MAX_DURATION_MS);
    expect(rollbackBudgetMs(huge)).toBe(MAX_DURATION_MS);
  });
});

describe('the warm step’s bound', () => {
  const check = (kind: 'http' | 'tcp', timeout: number) =>
    ({ check: { kind, timeout } }) as unknown as { readonly check: CheckConfig };

  it('is its wait, then the slowest HTTP check’s timeout: the checks run at once', () => {
    expect(WARM_AFTER_MS).toBe(250);
    expect(warmBoundMs([check('http', 2_000), check('tcp', 9_000), check('http', 5_000)])).toBe(
      250 + 5_000,
    );
  });

  it('is none without an HTTP check: nothing to warm', () => {
    expect(warmBoundMs([check('tcp', 9_000)])).toBe(0);
    expect(warmBoundMs([])).toBe(0);
  });

  it('is not the host window’s: the host runs it beside await-out', () => {
    expect(BOUNDED_STEPS).not.toContain('warm');
  });
});
