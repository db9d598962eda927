import { describe, expect, it } from 'vitest';
import type { TargetState } from '../../../src/balancer/balancer.js';
import { targetJson, targetStates } from '../../../src/cli/target-json.js';
import { toJsonShape } from '../../../src/cli/json-keys.js';

const hosts = [
  { name: 'web-1', address: '10.0.0.1', target: 'i-1' },
  { name: 'web-2', address: '10.0.0.2', target: 'i-2' },
];

describe('a target’s state in a result', () => {
  it('is the balancer’s own word when it has one, printed in snake_case', () => {
    const state: TargetState = { target: 'i-1', state: 'draining', inRotation: false };
    expect(toJsonShape(targetJson('i-1', state))).toEqual({
      target: 'i-1',
      state: 'draining',
      in_rotation: false,
    });
  });

  it('is unknown, with why, for a target the balancer did not report', async () => {
    const states = new Map([
      ['i-1', { target: 'i-1', state: 'healthy', inRotation: true } as const],
    ]);
    const of = await targetStates(
      () => Promise.resolve({ states: () => Promise.resolve(states) }),
      hosts,
    );
    expect(of(hosts[0]!)).toEqual({ target: 'i-1', state: 'healthy', inRotation: true });
    expect(of(hosts[1]!)).toEqual({
      target: 'i-2',
      state: 'unknown',
      inRotation: null,
      reason: 'the balancer did not report it',
    });
  });

  it('is unknown for every host, with the balancer’s error, when the balancer cannot be read', async () => {
    const of = await targetStates(
      () => Promise.resolve({ states: () => Promise.reject(new Error('socket gone')) }),
      hosts,
    );
    expect(of(hosts[1]!)).toEqual({
      target: 'i-2',
      state: 'unknown',
      inRotation: null,
      reason: 'the balancer could not be read: socket gone',
    });
  });
});
