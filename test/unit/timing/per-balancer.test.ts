import { describe, expect, it } from 'vitest';
import {
  awaitInWait,
  awaitOutWait,
  fleetTiming,
  modelsPerBalancer,
  slowestBounds,
  slowestModel,
  timingModel,
} from '../../../src/timing/index.js';
import { base, s, settings } from './fixture.js';

const health = base.drain;
const deregister = { ...base.drain, method: 'deregister' as const };

// lb-a: inter 1s fall 2 rise 5; lb-b: inter 3s fall 3 rise 2, a slow start of 10s
const a = {
  name: 'lb-a',
  settings: {
    ...settings,
    interval: s(1),
    timeout: s(0.5),
    unhealthyThreshold: 2,
    healthyThreshold: 5,
  },
};
const b = {
  name: 'lb-b',
  settings: {
    ...settings,
    interval: s(3),
    timeout: s(1),
    unhealthyThreshold: 3,
    healthyThreshold: 2,
    slowStart: s(10),
  },
};

describe('the wait on one balancer', () => {
  it('is the detection bound plus one check timeout with drain.method health', () => {
    expect(awaitOutWait(b.settings, health)).toBe(s(9) + s(1));
  });

  it('is the deregistration delay plus one check timeout with drain.method deregister', () => {
    expect(awaitOutWait({ ...b.settings, deregistrationDelay: s(20) }, deregister)).toBe(s(21));
  });

  it('back in is healthy_threshold checks, the slow start, one check timeout and one interval', () => {
    expect(awaitInWait(b.settings)).toBe(s(6) + s(10) + s(1) + s(3));
    expect(awaitInWait(a.settings)).toBe(s(5) + s(0.5) + s(1));
  });
});

describe('several balancers', () => {
  it('wait out the slowest for each bound, naming which balancer sets it', () => {
    // out: lb-a 2.5s, lb-b 10s; in: lb-a 6.5s, lb-b 20s
    expect(slowestBounds([a, b], health)).toEqual({
      awaitOut: { ms: s(10), by: 'lb-b' },
      awaitIn: { ms: s(20), by: 'lb-b' },
      interval: s(1),
    });
  });

  it('can have each bound set by another balancer', () => {
    const c = { name: 'lb-c', settings: { ...a.settings, healthyThreshold: 30 } };
    const bounds = slowestBounds([b, c], health);
    expect(bounds.awaitOut).toEqual({ ms: s(10), by: 'lb-b' });
    expect(bounds.awaitIn).toEqual({ ms: s(31.5), by: 'lb-c' });
  });

  it('name the first of two equally slow balancers', () => {
    const twin = { ...b, name: 'lb-twin' };
    const bounds = slowestBounds([b, twin], health);
    expect([bounds.awaitOut.by, bounds.awaitIn.by]).toEqual(['lb-b', 'lb-b']);
    expect(slowestModel(modelsPerBalancer(base, [b, twin])).name).toBe('lb-b');
  });

  it('poll at the pace of the fastest balancer', () => {
    expect(slowestBounds([b, a], health).interval).toBe(s(1));
  });

  it('each get the whole model with their own settings', () => {
    const models = modelsPerBalancer(base, [a, b]);
    expect(models.map((m) => m.name)).toEqual(['lb-a', 'lb-b']);
    expect(models[1]?.model).toEqual(timingModel({ ...base, settings: b.settings }));
  });

  it('come together as what check and a dry run show: the models, the slowest, the bounds of the drain given', () => {
    const input = { ...base, drain: deregister };
    const timing = fleetTiming(input, [a, b]);
    expect(timing.models).toEqual(modelsPerBalancer(input, [a, b]));
    expect(timing.slowest.name).toBe('lb-b');
    expect(timing.bounds).toEqual(slowestBounds([a, b], deregister));
    expect(timing.bounds).not.toEqual(slowestBounds([a, b], health));
  });

  it('show the timeline of the balancer with the longest host window', () => {
    const models = modelsPerBalancer(base, [b, a]);
    expect(slowestModel(models).name).toBe('lb-b');
    expect(slowestModel([...models].reverse()).name).toBe('lb-b');
  });
});
