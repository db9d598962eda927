import { describe, expect, it } from 'vitest';
import type { RolloutResult, StepName } from '../../../src/rollout/types.js';
import {
  formatGaps,
  formatPhases,
  gapsByPair,
  p2Phases,
  stepsByHost,
} from '../../../scripts/bench/p2-phases.js';

const step = (step: StepName, offset_ms: number, duration_ms: number) => ({
  step,
  offset_ms,
  duration_ms,
  ok: true,
});
const WAITS: readonly StepName[] = ['await-out', 'overlap'];

function rollout(elapsed_ms: number, hosts: Record<string, ReturnType<typeof step>[]>) {
  return {
    ok: true,
    release: 'r2',
    notReached: [],
    elapsed_ms,
    hosts: Object.entries(hosts).map(([host, steps]) => ({
      host,
      result: 'deployed',
      steps,
      leftDrained: false,
    })),
  } as unknown as RolloutResult;
}

describe("P2's phases, from the rollout's own step timeline", () => {
  it('splits the time that is no wait into before, steps, gaps and the end, per host', () => {
    const result = rollout(2000, {
      // out of order on purpose: the timeline is sorted by offset
      'web-2': [step('lock', 1100, 20), step('await-out', 1150, 500)],
      'web-1': [step('lock', 300, 40), step('await-out', 360, 400), step('overlap', 760, 200)],
    });
    const p = p2Phases(result, WAITS);
    // before web-1's lock 300; web-1: gap 20 after lock; between web-1 (ends 960) and web-2 140;
    // web-2: gap 30; the end 2000 − 1650
    expect(p).toEqual({
      preflight: 150,
      steps: 30,
      withinHost: 25,
      betweenHosts: 70,
      end: 175,
    });
    // with the waits (1100 / 2) they add up to elapsed per host
    const total = p.preflight + p.steps + p.withinHost + p.betweenHosts + p.end;
    expect(total + 1100 / 2).toBe(2000 / 2);
    expect(formatPhases(p)).toBe(
      'preflight 150 · steps 30 · within hosts 25 · between hosts 70 · end 175',
    );
  });

  it('counts overlapping hosts once, and a rollout with no step as all preflight', () => {
    const overlapping = rollout(1000, {
      a: [step('prepare', 100, 300)],
      b: [step('prepare', 150, 300)],
    });
    expect(p2Phases(overlapping, WAITS)).toMatchObject({
      preflight: 50,
      betweenHosts: 0,
      end: 275,
    });
    expect(p2Phases(rollout(800, {}), WAITS)).toMatchObject({ preflight: 800, end: 0 });
  });
});

describe('the gaps, by the two steps around each', () => {
  it('adds up to the gaps within and between hosts, per host, the largest first', () => {
    const result = rollout(2000, {
      'web-2': [step('lock', 1100, 20), step('await-out', 1150, 500)],
      'web-1': [step('lock', 300, 40), step('await-out', 360, 400), step('overlap', 760, 200)],
    });
    const gaps = gapsByPair(result);
    // web-1 lock→await-out 20; overlap (web-1) → lock (web-2) 140; web-2 lock→await-out 30
    expect(Object.fromEntries(gaps)).toEqual({ 'lock→await-out': 25, 'overlap→lock': 70 });
    const p = p2Phases(result, WAITS);
    expect(25 + 70).toBe(p.withinHost + p.betweenHosts);
    expect(formatGaps(gaps)).toBe('overlap→lock 70, lock→await-out 25');
  });

  it("lists each host's steps that are no wait, in its order", () => {
    const result = rollout(2000, {
      'web-1': [step('lock', 300, 40.4), step('await-out', 360, 400), step('drain', 760, 7)],
      'web-2': [step('lock', 1100, 20)],
    });
    expect(stepsByHost(result, WAITS)).toBe('web-1: lock 40 · drain 7; web-2: lock 20');
  });
});
