import { describe, expect, it } from 'vitest';
import type { EvidenceDeps } from '../../../src/evidence/create-source.js';
import type { MetricsReceipt } from '../../../src/evidence/kit/metrics-receipt.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import { testConfig } from '../../support/config.js';
import { fleet } from '../../support/rollout-fleet.js';

const receipt: MetricsReceipt = {
  source: 'metrics web',
  hosts: [],
  total: { requests: 10, failed: 0 },
  window: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-01T00:01:00.000Z' },
  final: false,
  note: 'whole minutes 00:00–00:01 UTC',
};

/** A metrics receipt: what each host had been asked when its clients were loaded, and read. */
function metricsSeen(f: ReturnType<typeof fleet>, hosts = 3) {
  const seen: { what: 'warm' | 'receipt'; calls: string[][] }[] = [];
  const calls = () => Array.from({ length: hosts }, (_, i) => [...f.host(i + 1).calls]);
  const evidence: EvidenceDeps = {
    metrics: {
      warm: () => void seen.push({ what: 'warm', calls: calls() }),
      receipt: () => {
        seen.push({ what: 'receipt', calls: calls() });
        return Promise.resolve(receipt);
      },
    },
    judgement: () => ({ missing: 'none here' }),
  };
  return { deps: { ...f.deps, evidence }, seen };
}

describe("the rollout's metrics receipt", () => {
  it('loads its clients while the last wave waits in its overlap, then reads it at the end', async () => {
    const f = fleet(testConfig({}, 3));
    const { deps, seen } = metricsSeen(f);
    const result = await rollout(deps, { release: 'r2', dryRun: false, rollback: true });
    expect(result.ok).toBe(true);
    expect(result.receipt).toEqual(receipt);
    expect(seen.map((s) => s.what)).toEqual(['warm', 'receipt']);
    const [web1, web2, web3] = seen[0]?.calls ?? [];
    // the earlier waves are done; the last one is drained and not yet stopped
    expect(web1).toContain('unlock');
    expect(web2).toContain('unlock');
    expect(web3).toContain('drain');
    expect(web3).not.toContain('stop');
  });

  it('a last wave of several hosts: once every one of them has drained and is in its overlap', async () => {
    const base = testConfig({}, 4);
    const f = fleet({ ...base, rollout: { ...base.rollout, batch: { kind: 'count', count: 2 } } });
    const { deps, seen } = metricsSeen(f, 4);
    const result = await rollout(deps, { release: 'r2', dryRun: false, rollback: true });
    expect(result.ok).toBe(true);
    expect(seen.map((s) => s.what)).toEqual(['warm', 'receipt']);
    const [web1, web2, web3, web4] = seen[0]?.calls ?? [];
    expect(web1).toContain('unlock');
    expect(web2).toContain('unlock');
    expect(web3).toContain('drain');
    expect(web4).toContain('drain');
  });

  it('a rollout that stops before its last wave loads it at the end only', async () => {
    const f = fleet(testConfig({}, 3));
    f.host(1).bad.add('r2');
    const { deps, seen } = metricsSeen(f);
    const result = await rollout(deps, { release: 'r2', dryRun: false, rollback: true });
    expect(result.ok).toBe(false);
    expect(seen.map((s) => s.what)).toEqual(['receipt']);
  });
});
