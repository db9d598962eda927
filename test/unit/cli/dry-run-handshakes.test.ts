import { describe, expect, it } from 'vitest';
import { renderHandshakes } from '../../../src/cli/rollout/rollout-report.js';
import { planHandshakes } from '../../../src/rollout/handshake/plan-steps.js';
import { testConfig } from '../../support/config.js';

const bounds = { awaitOut: 12_000, awaitIn: 17_000, interval: 5_000 };

describe('a dry run’s handshakes', () => {
  it('show each step with its bound, and the warm-up beside await-out, not on the way', () => {
    const config = testConfig();
    const plans = planHandshakes(
      config,
      bounds,
      config.hosts.slice(0, 1),
      new Map([['web-1', 'r1']]),
    );
    expect(plans[0]?.steps.slice(2, 5)).toEqual([
      { step: 'drain', changes: 'drained' },
      { step: 'warm', bound_ms: 2_250, beside: 'await-out' },
      { step: 'await-out', bound_ms: 12_000 },
    ]);
    expect(renderHandshakes(plans)).toBe(
      'web-1 (now r1): lock → capacity → drain → (warm ≤2.3s beside await-out) → await-out ≤12s → overlap ≤15s → stop ≤1m → switch → start → verify ≤2m → undrain → await-in ≤17s → confirm ≤2m → unlock',
    );
  });
});
