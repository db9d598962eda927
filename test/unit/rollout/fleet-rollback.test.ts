import { describe, expect, it } from 'vitest';
import { BlockedError } from '../../../src/errors.js';
import { planFleetRollback } from '../../../src/rollout/fleet-rollback.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import type { HostOutcome, RolloutOptions } from '../../../src/rollout/types.js';
import { testConfig } from '../../support/config.js';
import { fleet } from '../../support/rollout-fleet.js';
import { ended, handshake } from '../../support/handshake.js';

const options: RolloutOptions = { release: 'r2', dryRun: false, rollback: true };
const onFailure = (kind: 'stop' | 'rollback', hosts = 3) => {
  const base = testConfig({}, hosts);
  return testConfig({ rollout: { ...base.rollout, onFailure: kind } }, hosts);
};

function outcome(host: string, result: HostOutcome['result']): HostOutcome {
  return { host, result, steps: [], leftDrained: false };
}

describe('planning rollout.on_failure rollback', () => {
  const [a, b, c, d] = testConfig({}, 4).hosts;
  const waves = [[a!, b!], [c!], [d!]];

  it('returns only the deployed hosts, the latest wave first, each to the release it ran before', () => {
    const plan = planFleetRollback(
      'r2',
      waves,
      [
        outcome('web-1', 'deployed'),
        outcome('web-2', 'deployed'),
        outcome('web-3', 'deployed'),
        outcome('web-4', 'rolled-back'),
      ],
      new Map([
        ['web-1', 'r1'],
        ['web-2', 'r0'],
        ['web-3', 'r1'],
        ['web-4', 'r1'],
      ]),
    );
    expect(plan.waves.map((w) => w.map((x) => `${x.host.name}→${x.release}`))).toEqual([
      ['web-3→r1'],
      ['web-1→r1', 'web-2→r0'],
    ]);
    expect(plan.kept).toEqual([]);
  });

  it('keeps a host that ran no release before, or already ran the new one, and says why', () => {
    const plan = planFleetRollback(
      'r2',
      waves,
      [outcome('web-1', 'deployed'), outcome('web-2', 'deployed'), outcome('web-3', 'failed')],
      new Map<string, string | null>([
        ['web-1', null],
        ['web-2', 'r2'],
      ]),
    );
    expect(plan.waves).toEqual([]);
    expect(plan.kept).toEqual([
      { host: 'web-1', reason: 'ran no release before' },
      { host: 'web-2', reason: 'ran r2 before' },
    ]);
  });
});

describe('rollout.on_failure', () => {
  it('stop (the default) leaves the earlier hosts on the new release and says so', async () => {
    const f = fleet(onFailure('stop'));
    f.host(3).bad.add('r2');
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(false);
    expect(result.fleetRollback).toBeUndefined();
    expect(result.ended).toEqual(ended('r2', 'r2', 'r1'));
  });

  it('rollback returns the earlier waves, latest first, with the full handshake each', async () => {
    const f = fleet(onFailure('rollback'));
    const order: string[] = [];
    for (const n of [1, 2, 3]) f.host(n).onCall = (op) => order.push(`web-${n} ${op}`);
    f.host(3).bad.add('r2');
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(false);
    expect(result.hosts.map((h) => `${h.host} ${h.result}`)).toEqual([
      'web-1 deployed',
      'web-2 deployed',
      'web-3 rolled-back',
    ]);
    expect(result.fleetRollback?.hosts.map((h) => `${h.host} ${h.result}`)).toEqual([
      'web-2 deployed',
      'web-1 deployed',
    ]);
    expect(result.fleetRollback?.kept).toEqual([]);
    expect(result.ended).toEqual(ended('r1', 'r1', 'r1'));
    const back = order.filter((c) => c.endsWith('switch r1') && !c.startsWith('web-3'));
    expect(back).toEqual(['web-2 switch r1', 'web-1 switch r1']);
    const web1Back = f.actions(1).slice(f.actions(1).lastIndexOf('lock'));
    expect(web1Back).toEqual(handshake('r1'));
  });

  it('rollback stops at a host that will not go back, keeping the waves it did not reach', async () => {
    const f = fleet(onFailure('rollback'));
    f.host(3).bad.add('r2');
    // web-2's old release fails too now: its way back fails, web-1 is not reached
    f.host(2).bad.add('r1');
    const result = await rollout(f.deps, options);
    expect(result.fleetRollback?.hosts.map((h) => `${h.host} ${h.result}`)).toEqual([
      'web-2 rolled-back',
    ]);
    expect(result.fleetRollback?.kept).toEqual([
      { host: 'web-1', reason: 'the rollback stopped first' },
    ]);
    expect(result.ended?.[0]).toEqual({ host: 'web-1', release: 'r2' });
  });

  it('rollback runs when the balancer failed to answer before a later wave', async () => {
    const f = fleet(onFailure('rollback'));
    // the capacity guard before web-2 gets no answer; the rollback's guard does
    f.host(1).onCall = (op) => {
      if (op === 'unlock' && f.host(1).release === 'r2')
        f.balancer.failStates(new BlockedError('ALB reading target health: AWS throttled'), 1);
    };
    const result = await rollout(f.deps, options);
    expect(result.blocked).toMatch(/^capacity guard before web-2: the balancer did not answer/);
    expect(result.fleetRollback?.hosts.map((h) => `${h.host} ${h.result}`)).toEqual([
      'web-1 deployed',
    ]);
    expect(result.ended).toEqual(ended('r1', 'r1', 'r1'));
  });

  it('a balancer that stays unanswering stops the rollback too, and the result says where each host is', async () => {
    const f = fleet(onFailure('rollback'));
    f.host(1).onCall = (op) => {
      if (op === 'unlock')
        f.balancer.failStates(new BlockedError('ALB reading target health: 503'));
    };
    const result = await rollout(f.deps, options);
    expect(result.blocked).toMatch(/^capacity guard before web-2: the balancer did not answer/);
    expect(result.fleetRollback?.blocked).toMatch(
      /^capacity guard before web-1: the balancer did not answer \(ALB reading target health: 503\)/,
    );
    expect(result.fleetRollback?.kept).toEqual([
      { host: 'web-1', reason: 'the rollback stopped first' },
    ]);
    expect(result.ended).toEqual(ended('r2', 'r1', 'r1'));
  });
});
