import { describe, expect, it } from 'vitest';
import { HostUnreachableError, hostError, UsageError } from '../../../src/errors.js';
import { findHost } from '../../../src/rollout/plan.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import { testConfig } from '../../support/config.js';
import { fleet } from '../../support/rollout-fleet.js';

describe('errors that name hosts', () => {
  it("names a host once: its error's own prefix is dropped where the caller prints the name", () => {
    const e = new HostUnreachableError('app-1', 'connect ECONNREFUSED 10.0.0.1:22');
    expect(e.message).toBe('app-1: connect ECONNREFUSED 10.0.0.1:22');
    expect(hostError('app-1', e)).toBe('connect ECONNREFUSED 10.0.0.1:22');
    // another host's name is part of the reason, not a prefix to drop
    expect(hostError('app-2', e)).toBe('app-1: connect ECONNREFUSED 10.0.0.1:22');
  });

  it('puts each unreachable host of a preflight on its own line, named once', async () => {
    const f = fleet();
    for (const n of [1, 3])
      f.host(n).failOn.set('status', new HostUnreachableError(`web-${n}`, 'connection refused'));
    const failure = await rollout(f.deps, { release: 'r2', dryRun: false, rollback: true }).catch(
      (e: unknown) => e,
    );
    expect((failure as Error).message.split('\n')).toEqual([
      'preflight: web-1: connection refused',
      'preflight: web-3: connection refused',
    ]);
  });

  it("'drain app-9' says unknown host app-9, not --hosts", () => {
    const hosts = testConfig().hosts;
    expect(() => findHost(hosts, 'app-9')).toThrow(UsageError);
    expect(() => findHost(hosts, 'app-9')).toThrow(
      /^unknown host app-9; deploy.yml has web-1, web-2, web-3$/,
    );
    expect(findHost(hosts, 'web-2').name).toBe('web-2');
  });
});

describe('a one-host fleet', () => {
  it('is blocked by the capacity guard unless rollout.allow_downtime is said, then deploys', async () => {
    const base = testConfig({}, 1);
    const blocked = await rollout(fleet(base).deps, {
      release: 'r2',
      dryRun: false,
      rollback: true,
    }).catch((e: unknown) => e);
    expect((blocked as Error).message).toMatch(/invariant capacity/);
    const f = fleet(testConfig({ rollout: { ...base.rollout, allowDowntime: true } }, 1));
    const r = await rollout(f.deps, { release: 'r2', dryRun: false, rollback: true });
    expect(r.ok).toBe(true);
    expect(f.host(1).release).toBe('r2');
  });
});
