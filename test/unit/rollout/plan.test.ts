import { describe, expect, it } from 'vitest';
import { findHost, parseBatchFlag, planRollout, selectHosts } from '../../../src/rollout/plan.js';
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

describe('planRollout with a canary', () => {
  const names = (plan: ReturnType<typeof planRollout>) =>
    plan.waves.map((w) => w.map((h) => h.name));
  const two = { kind: 'count' as const, count: 2 };

  it('makes the canary the first wave, then the rest in batches', () => {
    const plan = planRollout('r2', hosts, two, { kind: 'count', count: 1 });
    expect(names(plan)).toEqual([['web-1'], ['web-2', 'web-3'], ['web-4', 'web-5']]);
    expect(plan.canary).toBe(true);
  });

  it('resolves a percentage against the fleet', () => {
    const plan = planRollout('r2', hosts, two, { kind: 'percent', percent: 40 });
    expect(names(plan)).toEqual([['web-1', 'web-2'], ['web-3', 'web-4'], ['web-5']]);
  });

  it('has no canary when it would leave no host on the old release, or none is set', () => {
    const all = planRollout('r2', hosts, two, { kind: 'count', count: 5 });
    expect(names(all)).toEqual([['web-1', 'web-2'], ['web-3', 'web-4'], ['web-5']]);
    expect(all).not.toHaveProperty('canary');
    expect(planRollout('r2', hosts, two)).not.toHaveProperty('canary');
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

describe('parseBatchFlag at its edges', () => {
  it.each([
    ['1', { kind: 'count', count: 1 }],
    ['12', { kind: 'count', count: 12 }],
    ['1%', { kind: 'percent', percent: 1 }],
    ['100%', { kind: 'percent', percent: 100 }],
  ])('reads %j', (value, batch) => {
    expect(parseBatchFlag(value)).toEqual(batch);
  });

  it.each(['x5%', '5%x', '5x', 'x5'])('rejects %j, saying what it expects', (value) => {
    expect(() => parseBatchFlag(value)).toThrow(
      `--batch ${JSON.stringify(value)}: expected a host count like 2 or a share like 25%`,
    );
  });
});

/** The message of what `fn` throws, which must be a UsageError. */
function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('did not throw');
}

describe('selectHosts and findHost', () => {
  it('takes the whole fleet for an empty --hosts', () => {
    expect(selectHosts(hosts, []).map((h) => h.name)).toEqual(hosts.map((h) => h.name));
  });

  it('names every unknown host and every known one', () => {
    expect(usageMessage(() => selectHosts(hosts.slice(0, 2), ['web-9', 'web-8']))).toBe(
      '--hosts: unknown host web-9, web-8; deploy.yml has web-1, web-2',
    );
  });

  it('finds the host a command names, and refuses an unknown one naming the fleet', () => {
    expect(findHost(hosts, 'web-3').name).toBe('web-3');
    expect(usageMessage(() => findHost(hosts.slice(0, 2), 'web-7'))).toBe(
      'unknown host web-7; deploy.yml has web-1, web-2',
    );
  });
});

describe('planRollout waves', () => {
  it('makes no empty wave when the batch divides the fleet', () => {
    const plan = planRollout('r2', hosts.slice(0, 4), { kind: 'count', count: 2 });
    expect(plan.waves.map((w) => w.map((h) => h.name))).toEqual([
      ['web-1', 'web-2'],
      ['web-3', 'web-4'],
    ]);
  });
});
