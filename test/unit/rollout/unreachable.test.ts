import { describe, expect, it } from 'vitest';
import { BlockedError, HostUnreachableError } from '../../../src/errors.js';
import { allowedUnreachable, judgeReach } from '../../../src/rollout/preflight-reach.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import type { RolloutOptions } from '../../../src/rollout/types.js';
import type { Config, RolloutConfig } from '../../../src/config/types.js';
import { testConfig } from '../../support/config.js';
import { fleet } from '../../support/rollout-fleet.js';

const options: RolloutOptions = { release: 'r2', dryRun: false, rollback: true };
const down = (host: string) =>
  new HostUnreachableError(host, 'connection refused at 10.0.0.3:22', { network: true });
const skip = (count: number): Pick<RolloutConfig, 'unreachable' | 'maxUnreachable'> => ({
  unreachable: 'skip',
  maxUnreachable: { kind: 'count', count },
});
const skipping = (count: number, hosts = 3, minHealthy = 1): Config =>
  testConfig({ rollout: { ...testConfig().rollout, ...skip(count), minHealthy } }, hosts);

/** a fleet whose web-N the network does not reach: its agent never opens */
function withDead(config: Config, ...dead: number[]) {
  const f = fleet(config);
  const agent: typeof f.deps.agent = (h) =>
    dead.some((n) => h.name === `web-${n}`) ? Promise.reject(down(h.name)) : f.deps.agent(h);
  return { ...f, deps: { ...f.deps, agent } };
}

describe('rollout.unreachable, the policy', () => {
  it('fail (the default) refuses for any host, one line each', () => {
    const v = judgeReach(testConfig().rollout, 3, [{ host: 'web-3', error: down('web-3') }]);
    expect(v.skipped).toEqual([]);
    expect(v.problems).toEqual([{ host: 'web-3', reason: 'connection refused at 10.0.0.3:22' }]);
  });

  it('skip leaves out a host the network did not reach, within max_unreachable', () => {
    const v = judgeReach(skip(1), 3, [{ host: 'web-3', error: down('web-3') }]);
    expect(v).toEqual({
      skipped: [{ host: 'web-3', reason: 'connection refused at 10.0.0.3:22' }],
      problems: [],
    });
  });

  it('skip never leaves out a host for a changed key, a refused login or another agent', () => {
    const key = new HostUnreachableError('web-2', 'host key for 10.0.0.2 has CHANGED');
    const v = judgeReach(skip(5), 3, [
      { host: 'web-2', error: key },
      { host: 'web-3', error: down('web-3') },
    ]);
    expect(v.skipped).toEqual([]);
    expect(v.problems.map((p) => p.host)).toEqual(['web-2', 'web-3']);
  });

  it('more unreachable hosts than max_unreachable refuse, saying the allowance', () => {
    const v = judgeReach(skip(1), 3, [
      { host: 'web-2', error: down('web-2') },
      { host: 'web-3', error: down('web-3') },
    ]);
    expect(v.skipped).toEqual([]);
    expect(v.note).toBe(
      'rollout.max_unreachable allows 1 of 3 hosts to be skipped, 2 are unreachable; nothing was touched',
    );
  });

  it('a plan none of whose hosts answer refuses whatever the allowance', () => {
    const v = judgeReach(skip(5), 1, [{ host: 'web-1', error: down('web-1') }]);
    expect(v.skipped).toEqual([]);
    expect(v.note).toMatch(/no host of the plan is reachable/);
  });

  it('a percentage is of the plan, rounded down', () => {
    expect(allowedUnreachable({ kind: 'percent', percent: 1 }, 2000)).toBe(20);
    expect(allowedUnreachable({ kind: 'percent', percent: 2 }, 49)).toBe(0);
    expect(allowedUnreachable({ kind: 'count', count: 3 }, 2)).toBe(3);
  });
});

describe('a rollout with a host the network does not reach', () => {
  it('with fail, is refused before any host changes', async () => {
    const f = withDead(testConfig(), 3);
    const failure = await rollout(f.deps, options).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BlockedError);
    expect((failure as Error).message).toBe('preflight: web-3: connection refused at 10.0.0.3:22');
    for (const n of [1, 2]) expect(f.actions(n)).toEqual([]);
  });

  it('with skip, deploys every other host and names the skipped one in the result', async () => {
    const f = withDead(skipping(1), 2);
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    expect(result.hosts.map((h) => [h.host, h.result])).toEqual([
      ['web-1', 'deployed'],
      ['web-3', 'deployed'],
    ]);
    expect(result.skipped).toEqual([
      { host: 'web-2', reason: 'connection refused at 10.0.0.3:22' },
    ]);
    expect(result.ended?.map((e) => e.host)).toEqual(['web-1', 'web-3']);
    expect(f.host(1).release).toBe('r2');
    expect(f.host(3).release).toBe('r2');
    const line = f.log.events.find((e) => e.event === 'preflight.skip');
    expect(line?.message).toBe(
      'web-2 unreachable: skipped, not on r2 (connection refused at 10.0.0.3:22)',
    );
  });

  it('with skip, counts the skipped host as not serving although the balancer has it healthy', async () => {
    // three hosts, min_healthy 2: with web-3 out, draining web-1 leaves only web-2
    const f = withDead(skipping(1, 3, 2), 3);
    const failure = await rollout(f.deps, options).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BlockedError);
    expect((failure as Error).message).toMatch(/^capacity guard: /);
    for (const n of [1, 2]) expect(f.actions(n)).toEqual([]);
  });
});
