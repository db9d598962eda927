import { describe, expect, it } from 'vitest';
import type { HostAgent } from '../../../src/agent-client/host-agent.js';
import type { HostConfig } from '../../../src/config/types.js';
import type { VerifyReport } from '../../../src/protocol/results.js';
import { verifyFleet } from '../../../src/verify/fleet.js';
import { renderFleetVerification } from '../../../src/verify/render.js';
import { testConfig } from '../../support/config.js';

const report = (...releases: (string | undefined)[]): VerifyReport => ({
  ok: true,
  elapsed_ms: 1,
  services: releases.map((release, i) => ({
    name: `s${i}`,
    ok: true,
    code: 'ok',
    latency_ms: 1,
    passes: 1,
    ...(release ? { release } : {}),
  })),
});

/** hosts web-1… answering the given reports to `verify` */
async function verify(reports: readonly VerifyReport[]) {
  const base = testConfig();
  const hosts: HostConfig[] = reports.map((_, i) => ({
    ...base.hosts[0]!,
    name: `web-${i + 1}`,
    target: `web-${i + 1}`,
  }));
  const config = { ...base, hosts };
  const agentOf = (h: HostConfig) =>
    Promise.resolve({
      run: () => Promise.resolve(reports[Number(h.name.slice(4)) - 1]),
    } as unknown as HostAgent);
  return verifyFleet(config, hosts, agentOf, undefined);
}

describe('deploy verify: a host on another release than the fleet', () => {
  it('is caught: the fleet answers what most hosts answer, and verify fails naming the host', async () => {
    const v = await verify([
      report('r42'),
      report('r42', undefined),
      report('r41'),
      report('r42'),
      // names no release: counted on neither side
      report(undefined),
    ]);
    expect(v.release).toBe('r42');
    expect(v.otherRelease).toEqual([{ host: 'web-3', release: 'r41' }]);
    expect(v.ok).toBe(false);
    expect(renderFleetVerification(v).split('\n').at(-1)).toBe(
      "web-3 answers r41, the fleet r42 (3 of 5 hosts): a host that missed a rollout; 'deploy rollout --release r42 --hosts web-3' brings it level",
    );
  });

  it('a tie goes to the newest release; a host whose services disagree is on neither', async () => {
    const tie = await verify([report('r9'), report('r10')]);
    expect(tie.release).toBe('r10');
    expect(tie.otherRelease).toEqual([{ host: 'web-1', release: 'r9' }]);
    const split = await verify([report('r2', 'r1'), report('r2'), report('r2')]);
    expect(split.otherRelease).toEqual([{ host: 'web-1', release: 'r1, r2' }]);
  });

  it('one release everywhere, or none named (no x-release), passes as before', async () => {
    const same = await verify([report('r1'), report('r1', undefined)]);
    expect(same).toMatchObject({ ok: true, release: 'r1', otherRelease: [] });
    const unnamed = await verify([report(undefined), report(undefined)]);
    expect(unnamed.ok).toBe(true);
    expect(unnamed.release).toBeUndefined();
    expect(unnamed.otherRelease).toEqual([]);
  });

  it('over 20 hosts, the summary counts it as a state of its own', async () => {
    const v = await verify([...Array.from({ length: 24 }, () => report('r42')), report('r41')]);
    expect(renderFleetVerification(v).split('\n').slice(0, 2)).toEqual([
      '✓ 24 hosts: every service answers, in rotation',
      "✗ 1 host: on another release than the fleet's r42",
    ]);
  });
});
