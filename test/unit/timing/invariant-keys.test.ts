import { describe, expect, it } from 'vitest';
import { invariantKey } from '../../../src/timing/invariant-keys.js';

describe('the deploy.yml key an invariant points at', () => {
  it.each([
    ['drain-before-stop', 'drain.overlap'],
    ['request-before-kill', 'drain.stop_timeout'],
    ['capacity', 'rollout.min_healthy'],
    ['time-back', 'rollout.max_time_back'],
    ['watchdog-vs-drain', 'watchdog.every'],
    ['canary-bake', 'rollout.canary.bake'],
  ] as const)('%s → %s', (id, key) => {
    expect(invariantKey({ id })).toBe(key);
  });

  it('is none for an invariant mended in the balancer, not in deploy.yml', () => {
    expect(invariantKey({ id: 'deregistration-delay' })).toBeUndefined();
    expect(invariantKey({ id: 'check-timeout' })).toBeUndefined();
    expect(invariantKey({ id: 'keep-alive' })).toBeUndefined();
  });

  it("is a kind's invariant's own, over the shared list", () => {
    expect(invariantKey({ id: 'drain-answer', key: 'drain.answer' })).toBe('drain.answer');
    expect(invariantKey({ id: 'sessions-kept' })).toBeUndefined();
    expect(invariantKey({ id: 'capacity', key: 'x.y' })).toBe('x.y');
  });
});
