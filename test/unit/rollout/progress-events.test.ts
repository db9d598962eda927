import { describe, expect, it } from 'vitest';
import { rollout } from '../../../src/rollout/run-rollout.js';
import { fleet } from '../../support/rollout-fleet.js';

const options = { release: 'r2', dryRun: false, rollback: true } as const;

describe('what a rollout tells its progress reporter', () => {
  it('gives each waiting step its bound when it starts', async () => {
    const f = fleet();
    const result = await rollout(f.deps, options);
    const starts = f.log.events.filter((e) => e.event === 'step.start' && e.host === 'web-1');
    const bound = (step: string) => starts.find((e) => e.fields?.step === step)?.fields?.boundMs;
    const recorded = result.hosts[0]?.steps.find((s) => s.step === 'await-out')?.bound_ms;
    expect(recorded).toBeGreaterThan(0);
    expect(bound('await-out')).toBe(recorded);
    const { drain, rollout: r } = f.deps.config;
    expect(bound('overlap')).toBe(drain.overlap);
    expect(bound('stop')).toBe(drain.stopTimeout);
    expect(bound('confirm')).toBe(r.verifyTimeout);
    expect(bound('lock')).toBeUndefined();
  });

  it("reports the balancer's word on the target when it changes, not on every poll", async () => {
    const f = fleet();
    await rollout(f.deps, options);
    const words = f.log.events
      .filter((e) => e.event === 'balancer.state' && e.host === 'web-1')
      .map((e) => [e.fields?.step, e.fields?.inRotation]);
    expect(words[0]).toEqual(['await-out', expect.anything()]);
    expect(words.at(-1)).toEqual(['await-in', true]);
    for (let i = 1; i < words.length; i += 1) expect(words[i]).not.toEqual(words[i - 1]);
  });

  it('names each wave, its hosts and the release each ran before', async () => {
    const f = fleet();
    await rollout(f.deps, { ...options, batch: { kind: 'count', count: 2 } });
    const waves = f.log.events.filter((e) => e.event === 'wave').map((e) => e.fields);
    expect(waves).toEqual([
      {
        wave: 1,
        waves: 2,
        hosts: [
          { host: 'web-1', releaseBefore: 'r1' },
          { host: 'web-2', releaseBefore: 'r1' },
        ],
      },
      { wave: 2, waves: 2, hosts: [{ host: 'web-3', releaseBefore: 'r1' }] },
    ]);
  });
});
