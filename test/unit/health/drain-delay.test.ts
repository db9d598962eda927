import { describe, expect, it } from 'vitest';
import { drainDelayMs } from '../../../src/health/drain-delay.js';

describe('the delay between SIGTERM and closing', () => {
  it("is the balancer's detection time when the stop timeout leaves room for it", () => {
    expect(drainDelayMs({ HANDOFF_DETECT_TIME: '10', HANDOFF_STOP_TIMEOUT: '150' }, 30_000)).toBe(
      10_000,
    );
  });

  it('is cut so that the grace still fits before the runtime kills the process', () => {
    expect(drainDelayMs({ HANDOFF_DETECT_TIME: '30', HANDOFF_STOP_TIMEOUT: '40' }, 30_000)).toBe(
      10_000,
    );
    expect(drainDelayMs({ HANDOFF_DETECT_TIME: '30', HANDOFF_STOP_TIMEOUT: '20' }, 30_000)).toBe(0);
  });

  it('is zero without a detection time, and ignores garbage', () => {
    expect(drainDelayMs({ HANDOFF_STOP_TIMEOUT: '150' }, 30_000)).toBe(0);
    expect(drainDelayMs({ HANDOFF_DETECT_TIME: 'soon' }, 30_000)).toBe(0);
    expect(drainDelayMs({ HANDOFF_DETECT_TIME: ' ' }, 30_000)).toBe(0);
    expect(drainDelayMs({ HANDOFF_DETECT_TIME: '5', HANDOFF_STOP_TIMEOUT: 'x' }, 30_000)).toBe(
      5_000,
    );
  });
});
