import { describe, expect, it } from 'vitest';
import { readyStatus, type ReadyInputs } from '../../../src/health/verdict.js';

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
