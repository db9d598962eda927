import { describe, expect, it } from 'vitest';
import { withCanaryFlags } from '../../../src/cli/rollout/canary-flags.js';
import type { Config } from '../../../src/config/types.js';
import { UsageError } from '../../../src/errors.js';
import { testConfig } from '../../support/config.js';

const withCanary = (): Config => {
  const base = testConfig({}, 4);
  return {
    ...base,
    rollout: { ...base.rollout, canary: { hosts: { kind: 'count', count: 1 }, bake: 60_000 } },
  };
};

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('--canary, --canary-bake and --no-canary over rollout.canary', () => {
  it('leaves deploy.yml as it is without the flags', () => {
    const config = withCanary();
    expect(withCanaryFlags(config, {}, 4)).toBe(config);
  });

  it('adds a canary deploy.yml does not have, with the default 5m bake or the one given', () => {
    const plain = testConfig({}, 4);
    expect(withCanaryFlags(plain, { canary: '1' }, 4).rollout.canary).toEqual({
      hosts: { kind: 'count', count: 1 },
      bake: 300_000,
    });
    expect(withCanaryFlags(plain, { canary: '25%', canaryBake: '30s' }, 4).rollout.canary).toEqual({
      hosts: { kind: 'percent', percent: 25 },
      bake: 30_000,
    });
  });

  it("overrides deploy.yml's hosts or bake, keeping the other", () => {
    expect(withCanaryFlags(withCanary(), { canary: '2' }, 4).rollout.canary).toEqual({
      hosts: { kind: 'count', count: 2 },
      bake: 60_000,
    });
    expect(withCanaryFlags(withCanary(), { canaryBake: '2m' }, 4).rollout.canary).toEqual({
      hosts: { kind: 'count', count: 1 },
      bake: 120_000,
    });
  });

  it('--no-canary drops rollout.canary for this rollout, and keeps the rest', () => {
    const config = withCanaryFlags(withCanary(), { canary: false }, 4);
    expect(config.rollout.canary).toBeUndefined();
    expect(config.rollout.judgement).toEqual(withCanary().rollout.judgement);
  });

  it('refuses what cannot work in one line', () => {
    expect(refusal(() => withCanaryFlags(withCanary(), { canary: 'two' }, 4))).toBe(
      '--canary "two": expected a host count like 1 or a share like 10%',
    );
    expect(refusal(() => withCanaryFlags(withCanary(), { canary: '4' }, 4))).toContain(
      'is 4 of the 4 hosts this rollout deploys, leaving none on the old release',
    );
    expect(refusal(() => withCanaryFlags(withCanary(), { canary: '100%' }, 4))).toContain(
      'leaving none on the old release',
    );
    expect(refusal(() => withCanaryFlags(withCanary(), { canaryBake: '30' }, 4))).toContain(
      '--canary-bake: "30" is not a duration; write it like 500ms',
    );
    expect(refusal(() => withCanaryFlags(testConfig({}, 4), { canaryBake: '30s' }, 4))).toContain(
      '--canary-bake needs a canary',
    );
    expect(
      refusal(() => withCanaryFlags(withCanary(), { canary: false, canaryBake: '30s' }, 4)),
    ).toContain('--no-canary');
  });
});
