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
    ['drain-answer', 'drain.answer'],
  ] as const)('%s → %s', (id, key) => {
    expect(invariantKey(id)).toBe(key);
  });

  it('is none for an invariant mended in the balancer, not in deploy.yml', () => {
    expect(invariantKey('deregistration-delay')).toBeUndefined();
    expect(invariantKey('check-timeout')).toBeUndefined();
    expect(invariantKey('keep-alive')).toBeUndefined();
  });
});
