import { describe, expect, it } from 'vitest';
import type { TargetState } from '../../../src/balancer/balancer.js';
import { checkCapacity } from '../../../src/rollout/capacity.js';

function states(map: Record<string, boolean | null>): Map<string, TargetState> {
  return new Map(
    Object.entries(map).map(([target, inRotation]) => [
      target,
      {
        target,
        inRotation,
        state: inRotation ? 'healthy' : inRotation === false ? 'unhealthy' : 'unknown',
      },
    ]),
  );
}

describe('checkCapacity', () => {
  it('allows draining when enough other targets are in rotation', () => {
    const v = checkCapacity(['a'], ['a', 'b', 'c'], states({ a: true, b: true, c: true }), 2);
    expect(v).toMatchObject({ ok: true, othersHealthy: 2, costing: ['a'] });
  });

  it('refuses when draining would leave fewer than min_healthy in rotation', () => {
    const v = checkCapacity(['a'], ['a', 'b', 'c'], states({ a: true, b: true, c: false }), 2);
    expect(v.ok).toBe(false);
    expect(v.message).toContain('only 1 other target(s) in rotation, min_healthy is 2');
  });

  it('never blocks a target that is already out of rotation (a fresh fleet)', () => {
    const v = checkCapacity(['a'], ['a', 'b', 'c'], states({ a: false, b: false, c: false }), 1);
    expect(v).toMatchObject({ ok: true, costing: [] });
  });

  it('counts only the in-rotation members of a wave as cost', () => {
    const v = checkCapacity(
      ['a', 'b'],
      ['a', 'b', 'c', 'd'],
      states({ a: true, b: false, c: true, d: true }),
      2,
    );
    expect(v).toMatchObject({ ok: true, costing: ['a'], othersHealthy: 2 });
  });

  it('counts every target as in rotation when the balancer cannot tell', () => {
    const v = checkCapacity(['a', 'b'], ['a', 'b', 'c'], states({ a: null, b: null, c: null }), 2);
    expect(v).toMatchObject({ ok: false, othersHealthy: 1 });
  });
});
