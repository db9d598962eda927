import { describe, expect, it } from 'vitest';
import { awaitInBound, awaitOutBound, batchSize } from '../../../src/timing/bounds.js';
import { base, s, settings } from './fixture.js';

describe('awaitOutBound', () => {
  it('is interval × unhealthy_threshold with method health', () => {
    expect(awaitOutBound({ ...settings, unhealthyThreshold: 3 }, base.drain)).toBe(s(15));
  });

  it('is the deregistration delay with method deregister', () => {
    const drain = { ...base.drain, method: 'deregister' as const };
    expect(awaitOutBound({ ...settings, deregistrationDelay: s(300) }, drain)).toBe(s(300));
  });

  it('ignores a deregistration delay with method health', () => {
    expect(awaitOutBound({ ...settings, deregistrationDelay: s(300) }, base.drain)).toBe(s(10));
  });

  it('stays interval × unhealthy_threshold for a 404 answer to disable-on-404: a service started before the change still answers 503', () => {
    const soft = { ...settings, unhealthyThreshold: 3, disableOn404: 'haproxy.cfg line 9' };
    expect(awaitOutBound(soft, { ...base.drain, answer: 404 })).toBe(s(15));
  });
});

describe('awaitInBound', () => {
  it('is interval × healthy_threshold without slow start', () => {
    expect(awaitInBound({ ...settings, healthyThreshold: 5 })).toBe(s(25));
  });

  it('adds slow start', () => {
    expect(awaitInBound({ ...settings, slowStart: s(90) })).toBe(s(100));
  });
});

describe('batchSize', () => {
  it('takes a count as it is', () => {
    expect(batchSize({ kind: 'count', count: 2 }, 5)).toBe(2);
  });

  it('rounds a percentage down', () => {
    expect(batchSize({ kind: 'percent', percent: 50 }, 5)).toBe(2);
  });

  it('is at least one host', () => {
    expect(batchSize({ kind: 'percent', percent: 1 }, 5)).toBe(1);
  });

  it('is at most every host', () => {
    expect(batchSize({ kind: 'percent', percent: 100 }, 5)).toBe(5);
  });
});
