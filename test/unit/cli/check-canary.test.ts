import { describe, expect, it } from 'vitest';
import { canaryTrafficWarnings, SAMPLE_MS } from '../../../src/cli/check/check-canary.js';
import type { Config } from '../../../src/config/types.js';
import type { WindowCounts } from '../../../src/evidence/kit/counts.js';
import type { EvidenceSource } from '../../../src/evidence/kit/source.js';
import { FakeClock } from '../../support/fake-clock.js';
import { testConfig, withBalancerCanary } from '../../support/config.js';

function withCanary(bake: number, minRequests = 100): Config {
  const base = testConfig({}, 4);
  return {
    ...base,
    rollout: withBalancerCanary(base.rollout, { bake, minRequests }),
  };
}

/** every host answered `requests` over the sample */
function counting(requests: number): () => Promise<EvidenceSource> {
  return () =>
    Promise.resolve({
      kind: 'balancer',
      label: 'haproxy be_api',
      open: (hosts) =>
        Promise.resolve({
          openedAt: 0,
          read: () =>
            Promise.resolve(
              new Map<string, WindowCounts>(
                hosts.map((h) => [h, { kind: 'counted', counts: { requests, failed: 0 } }]),
              ),
            ),
        }),
    });
}

describe('deploy check --live: can the canary see min_requests in its bake?', () => {
  const waited: number[] = [];
  const wait = (ms: number) => {
    waited.push(ms);
    return Promise.resolve();
  };

  it('warns when the traffic now would leave the canary inconclusive, with the numbers', async () => {
    // 6 requests in 3 s per host: 2/s, 60 s of bake: 120 < 200
    const warnings = await canaryTrafficWarnings(
      withCanary(60_000, 200),
      new FakeClock(),
      wait,
      undefined,
      counting(6),
    );
    expect(waited).toContain(SAMPLE_MS);
    expect(warnings).toEqual([
      'rollout.canary: at the 2.0 requests/s per host haproxy be_api counts now, the canary (1 host(s)) gets about 120 requests in its 1m bake, below min_requests 200: its verdict would be inconclusive (counted as failed); lengthen rollout.canary.bake or lower min_requests',
    ]);
  });

  it('says nothing when the bake gets enough', async () => {
    expect(
      await canaryTrafficWarnings(
        withCanary(300_000),
        new FakeClock(),
        wait,
        undefined,
        counting(6),
      ),
    ).toEqual([]);
  });

  it('says nothing without a canary, or with another source', async () => {
    const none = testConfig({}, 4);
    expect(
      await canaryTrafficWarnings(none, new FakeClock(), wait, undefined, counting(0)),
    ).toEqual([]);
    const c = withCanary(60_000);
    const service: Config = {
      ...c,
      rollout: { ...c.rollout, judgement: { ...c.rollout.judgement!, source: 'service' } },
    };
    expect(
      await canaryTrafficWarnings(service, new FakeClock(), wait, undefined, counting(0)),
    ).toEqual([]);
  });
});
