import { describe, expect, it } from 'vitest';
import { onlyNamed } from '../../../scripts/bench/only.js';

const all = ['haproxy', 'haproxy-pair', 'alb'];

describe('onlyNamed', () => {
  it('runs every part when the variable is unset or empty', () => {
    expect(onlyNamed('ROLLOUT_BALANCERS', all, {})).toEqual(all);
    expect(onlyNamed('ROLLOUT_BALANCERS', all, { ROLLOUT_BALANCERS: ' ' })).toEqual(all);
  });

  it('runs the named parts, in the benchmark’s order', () => {
    expect(onlyNamed('ROLLOUT_BALANCERS', all, { ROLLOUT_BALANCERS: 'alb, haproxy-pair' })).toEqual(
      ['haproxy-pair', 'alb'],
    );
  });

  it('refuses a name it does not have, saying the choices', () => {
    expect(() => onlyNamed('ROLLOUT_BALANCERS', all, { ROLLOUT_BALANCERS: 'nginx' })).toThrow(
      'ROLLOUT_BALANCERS: no nginx here; choose from haproxy, haproxy-pair, alb',
    );
  });
});
