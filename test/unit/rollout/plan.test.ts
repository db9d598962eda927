import { describe, expect, it } from 'vitest';
import { parseBatchFlag, planRollout, selectHosts } from '../../../src/rollout/plan.js';
import { UsageError } from '../../../src/errors.js';

const hosts = ['web-1', 'web-2', 'web-3', 'web-4', 'web-5'].map((name, i) => ({
  name,
  address: `10.0.0.${i + 1}`,
  target: `i-${i}`,
}));

describe('parseBatchFlag', () => {
  it('reads a count', () => {
    expect(parseBatchFlag('2')).toEqual({ kind: 'count', count: 2 });
  });
  it('reads a share', () => {
    expect(parseBatchFlag('25%')).toEqual({ kind: 'percent', percent: 25 });
  });
  it.each(['0', '-1', 'two', '0%', '101%', '1.5', ''])('rejects %j with a usage error', (v) => {
    expect(() => parseBatchFlag(v)).toThrow(UsageError);
  });
});

describe('selectHosts', () => {
  it('keeps the fleet order whatever order the flag names them in', () => {
    expect(selectHosts(hosts, ['web-3', 'web-1']).map((h) => h.name)).toEqual(['web-1', 'web-3']);
  });
  it('names the unknown host and the known ones', () => {
    expect(() => selectHosts(hosts, ['web-9'])).toThrow(/unknown host web-9; deploy.yml has web-1/);
  });
  it('takes the whole fleet without the flag', () => {
    expect(selectHosts(hosts, undefined)).toHaveLength(5);
  });
});

describe('planRollout', () => {
  it('splits the fleet into waves of the batch size, the last one shorter', () => {
    const plan = planRollout('r2', hosts, { kind: 'count', count: 2 });
    expect(plan.waves.map((w) => w.map((h) => h.name))).toEqual([
      ['web-1', 'web-2'],
      ['web-3', 'web-4'],
      ['web-5'],
    ]);
    expect(plan.batch).toBe(2);
  });
});
