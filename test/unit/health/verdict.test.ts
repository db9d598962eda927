import { describe, expect, it } from 'vitest';
import { drainCodeFrom, readyStatus, type ReadyInputs } from '../../../src/health/verdict.js';

const fine: ReadyInputs = {
  started: true,
  draining: false,
  critical: 'healthy',
  overloaded: false,
  degraded: false,
};

describe('readiness, in order', () => {
  it.each([
    [{ started: false, draining: true, critical: 'unhealthy' as const }, 'starting', 503],
    [{ critical: 'unknown' as const }, 'starting', 503],
    [{ draining: true, critical: 'unhealthy' as const, overloaded: true }, 'draining', 503],
    [{ critical: 'unhealthy' as const, overloaded: true, degraded: true }, 'failing', 503],
    [{ overloaded: true, degraded: true }, 'overloaded', 503],
    [{ degraded: true }, 'degraded', 200],
    [{}, 'ok', 200],
  ])('%o → %s %i', (change, status, code) => {
    expect(readyStatus({ ...fine, ...change })).toEqual({ status, code });
  });
});

describe('the drain answer', () => {
  it('is 404 only while draining: starting and failing stay 503', () => {
    expect(readyStatus({ ...fine, draining: true }, 404)).toEqual({
      status: 'draining',
      code: 404,
    });
    expect(readyStatus({ ...fine, started: false, draining: true }, 404)).toEqual({
      status: 'starting',
      code: 503,
    });
    expect(readyStatus({ ...fine, critical: 'unhealthy' }, 404)).toEqual({
      status: 'failing',
      code: 503,
    });
  });

  it('comes from HANDOFF_DRAIN_ANSWER, 404 only when it says exactly that', () => {
    expect(drainCodeFrom({ HANDOFF_DRAIN_ANSWER: '404' })).toBe(404);
    expect(drainCodeFrom({ HANDOFF_DRAIN_ANSWER: ' 404\n' })).toBe(404);
    expect(drainCodeFrom({ HANDOFF_DRAIN_ANSWER: '410' })).toBe(503);
    expect(drainCodeFrom({})).toBe(503);
  });
});
