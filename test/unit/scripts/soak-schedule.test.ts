import { describe, expect, it } from 'vitest';
import {
  CANARY_BAKE_MS,
  describeRollout,
  KILL_WINDOW_MS,
  soakSchedule,
} from '../../../scripts/bench/soak-schedule.js';

const fifty = soakSchedule(50, 24);
const indices = (pick: (r: (typeof fifty)[number]) => unknown): number[] =>
  fifty.filter((r) => pick(r)).map((r) => r.index);

describe('the soak schedule', () => {
  it('numbers the rollouts from 1 and deploys r2, r3, … after the lab’s r1', () => {
    expect(fifty).toHaveLength(50);
    expect(fifty.map((r) => r.index)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(fifty.slice(0, 3).map((r) => r.release)).toEqual(['r2', 'r3', 'r4']);
  });

  it('takes the balancers in turn: lb-a alone, the pair, the ELBv2 endpoint', () => {
    // rollout 2 is the compose lab's (below): the command lab's turn goes on at 3
    expect([fifty[0], fifty[2]].map((r) => r?.balancer)).toEqual(['haproxy', 'alb']);
    expect(fifty.slice(4, 7).map((r) => r.balancer)).toEqual(['haproxy-pair', 'alb', 'haproxy']);
  });

  it('runs lb-a’s turn of every other pass on the compose runtime’s lab, and rollout 2 so that a short run has one', () => {
    const compose = fifty.filter((r) => r.runtime === 'compose');
    expect(compose.map((r) => r.index)).toEqual([2, 10, 16, 22, 28, 29, 40, 46]);
    // the compose lab has lb-a alone, which has no deregistration delay
    expect(compose.every((r) => r.balancer === 'haproxy' && r.drain === 'health')).toBe(true);
    // a race of each kind and a kill (with the rollout after it) on real containers
    expect(compose.filter((r) => r.race).map((r) => r.race)).toEqual(['refused', 'wait-lease']);
    expect(compose.filter((r) => r.killAfterMs !== undefined).map((r) => r.index)).toEqual([28]);
    expect(soakSchedule(2, 24).map((r) => r.runtime)).toEqual(['command', 'compose']);
  });

  it('runs the rollout after a kill on the killed one’s balancer and drain', () => {
    for (const killed of fifty.filter((r) => r.killAfterMs !== undefined)) {
      const after = fifty[killed.index];
      if (!after) continue;
      expect([after.runtime, after.balancer, after.drain]).toEqual([
        killed.runtime,
        killed.balancer,
        killed.drain,
      ]);
      expect(after.killAfterMs).toBeUndefined();
    }
  });

  it('drains by deregistering on every other pass of the pair and the endpoint, never on lb-a alone', () => {
    expect(fifty.filter((r) => r.balancer === 'haproxy').every((r) => r.drain === 'health')).toBe(
      true,
    );
    expect(indices((r) => r.drain === 'deregister').slice(0, 5)).toEqual([3, 4, 8, 9, 15]);
    for (const b of ['haproxy-pair', 'alb'] as const) {
      const drains = new Set(fifty.filter((r) => r.balancer === b).map((r) => r.drain));
      expect(drains).toEqual(new Set(['health', 'deregister']));
    }
  });

  it('races every tenth rollout, refused and queued in turn', () => {
    expect(fifty.filter((r) => r.race).map((r) => [r.index, r.race])).toEqual([
      [10, 'refused'],
      [20, 'wait-lease'],
      [30, 'refused'],
      [40, 'wait-lease'],
      [50, 'refused'],
    ]);
  });

  it('kills every fifth rollout, never one that races, at a point within the kill window', () => {
    expect(indices((r) => r.killAfterMs !== undefined)).toEqual([
      3, 8, 13, 18, 23, 28, 33, 38, 43, 48,
    ]);
    for (const r of fifty.filter((x) => x.killAfterMs !== undefined)) {
      expect(r.race).toBeUndefined();
      expect(r.killAfterMs).toBeGreaterThanOrEqual(KILL_WINDOW_MS.min);
      expect(r.killAfterMs).toBeLessThanOrEqual(KILL_WINDOW_MS.max);
    }
    // a kill after every balancer of the command lab: the next rollout of each kind has a host to repair
    const commandKills = fifty.filter((r) => r.killAfterMs && r.runtime === 'command');
    expect(new Set(commandKills.map((r) => r.balancer)).size).toBe(3);
  });

  it('bakes a canary on lone-HAProxy rollouts that neither race nor are killed', () => {
    const canaries = fifty.filter((r) => r.canaryBakeMs === CANARY_BAKE_MS);
    expect(canaries.map((r) => r.index)).toEqual([1, 7, 25, 31, 37]);
    expect(canaries.every((r) => r.balancer === 'haproxy')).toBe(true);
  });

  it('is a pure function of its count and seed: a short run is the full run’s start', () => {
    expect(soakSchedule(50, 24)).toEqual(fifty);
    expect(soakSchedule(10, 24)).toEqual(fifty.slice(0, 10));
    const kills = (s: ReturnType<typeof soakSchedule>) => s.map((r) => r.killAfterMs);
    expect(kills(soakSchedule(50, 7))).not.toEqual(kills(fifty));
  });

  it('says each rollout in one line', () => {
    expect(describeRollout(fifty[2]!)).toBe(
      `#3 r4, alb, drain deregister, SIGKILL at ${fifty[2]!.killAfterMs} ms`,
    );
    expect(describeRollout(fifty[0]!)).toBe('#1 r2, haproxy, drain health, canary bake 5s');
    expect(describeRollout(fifty[9]!)).toBe(
      '#10 r11, compose, haproxy, drain health, race (refused)',
    );
  });
});
