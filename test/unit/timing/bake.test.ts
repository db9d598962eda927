import { describe, expect, it } from 'vitest';
import { bakePlan, canaryInvariants } from '../../../src/timing/bake.js';
import { buildTimeline } from '../../../src/timing/timeline.js';
import { timingModel } from '../../../src/timing/model.js';
import type { TimingInput } from '../../../src/timing/types.js';
import { base, s, settings } from './fixture.js';

const withRollout = (rollout: Partial<TimingInput['rollout']>, hosts = 5): TimingInput => ({
  ...base,
  hosts,
  rollout: { ...base.rollout, ...rollout },
});
const canary = { hosts: { kind: 'count' as const, count: 1 }, bake: s(300) };

describe('bakePlan', () => {
  it('puts the canary first, then the rest in batches, with a bake between later waves and a watch', () => {
    const input = withRollout(
      { canary, batch: { kind: 'count', count: 2 }, bake: s(60), watch: s(120) },
      5,
    );
    // canary web-1, then [2, 3] and [4, 5]: one bake between the two later waves
    expect(bakePlan(input)).toEqual({
      canaryHosts: 1,
      waves: 3,
      canaryBake: s(300),
      bakes: s(60),
      watch: s(120),
      total: s(480),
    });
  });

  it('resolves a canary percentage against the fleet, at least one host', () => {
    const input = withRollout(
      { canary: { ...canary, hosts: { kind: 'percent', percent: 10 } } },
      5,
    );
    expect(bakePlan(input).canaryHosts).toBe(1);
    const forty = withRollout(
      { canary: { ...canary, hosts: { kind: 'percent', percent: 40 } } },
      5,
    );
    expect(bakePlan(forty)).toMatchObject({ canaryHosts: 2, waves: 4 });
  });

  it('bakes between waves without a canary, and nothing when none is set', () => {
    expect(bakePlan(withRollout({ bake: s(30) }, 3))).toEqual({
      canaryHosts: 0,
      waves: 3,
      canaryBake: 0,
      bakes: s(60),
      watch: 0,
      total: s(60),
    });
    expect(bakePlan(withRollout({}, 3)).total).toBe(0);
  });

  it('has no bake between waves with a single later wave', () => {
    expect(
      bakePlan(withRollout({ canary, bake: s(30), batch: { kind: 'count', count: 4 } }, 5)).bakes,
    ).toBe(0);
  });
});

describe('the timeline with a canary', () => {
  it('counts the canary as a wave and adds the baking to the worst case', () => {
    const input = withRollout({ canary, bake: s(60), watch: s(120) }, 3);
    const t = buildTimeline(input);
    // canary, then web-2 and web-3 one at a time: 3 waves, a bake between the later two
    expect(t.waves).toBe(3);
    expect(t.canaryHosts).toBe(1);
    expect(t.bakingMs).toBe(s(480));
    expect(t.rolloutWorstCase).toBe(3 * t.hostWindow + s(480));
  });

  it('is unchanged without one', () => {
    const t = buildTimeline(withRollout({}, 3));
    expect(t.canaryHosts).toBe(0);
    expect(t.bakingMs).toBe(0);
    expect(t.rolloutWorstCase).toBe(3 * t.hostWindow);
  });
});

describe('the canary-bake invariant', () => {
  it('holds for a bake longer than the way back into rotation', () => {
    expect(canaryInvariants(withRollout({ canary }))).toEqual([
      {
        id: 'canary-bake',
        severity: 'error',
        ok: true,
        message: 'canary bake 5m > 10s the balancer takes to bring a host back',
      },
    ]);
  });

  it('breaks for a bake no longer than healthy threshold and slow start, saying what to set', () => {
    const input = {
      ...withRollout({ canary: { ...canary, bake: s(40) } }),
      settings: { ...settings, slowStart: s(30) },
    };
    const [i] = canaryInvariants(input);
    expect(i?.ok).toBe(false);
    expect(i?.message).toBe(
      'canary bake 40s ≤ 40s the balancer takes to bring a host back (healthy threshold, slow start): the canary would be judged before it takes its share of traffic; make rollout.canary.bake longer than 40s',
    );
  });

  it('is not there without a canary, and is part of the model with one', () => {
    expect(canaryInvariants(base)).toEqual([]);
    expect(timingModel(withRollout({ canary })).invariants.map((i) => i.id)).toContain(
      'canary-bake',
    );
  });
});
