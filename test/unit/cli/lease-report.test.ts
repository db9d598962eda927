import { describe, expect, it } from 'vitest';
import { renderLease, summarizeLease } from '../../../src/cli/lease-report.js';
import type { LeaseRecord } from '../../../src/protocol/lease.js';

const lease = (id: string, release: string): LeaseRecord => ({
  version: 1,
  id,
  holder: { user: 'alice', host: 'laptop', pid: 42 },
  command: 'rollout',
  release,
  started: '2026-12-01T10:00:00.000Z',
  heartbeat: '2026-12-01T10:00:04.000Z',
  ttlMs: 30_000,
});

describe('the fleet lease in deploy status', () => {
  it('free', () => {
    const s = summarizeLease([{ where: 'web-1' }, { where: 'web-2' }]);
    expect(s.held).toBe(false);
    expect(renderLease(s)).toEqual(['fleet lease: free']);
  });

  it('held: holder, command, release, heartbeat age and where', () => {
    const s = summarizeLease([
      { where: 'web-1', lease: lease('a', 'r7'), ageMs: 1_200 },
      { where: 'web-2', lease: lease('a', 'r7'), ageMs: 2_000 },
      { where: 'web-3', problem: 'lease.json is not a lease' },
      // status names an unreachable host on its own line already
      { where: 'web-4', unreachable: 'connection refused' },
    ]);
    expect(s.lease).toMatchObject({ id: 'a', heartbeatAgeMs: 1_200, expired: false });
    expect(renderLease(s)).toEqual([
      'fleet lease: held by deploy rollout r7 by alice@laptop pid 42 since 2026-12-01T10:00:00.000Z, heartbeat 1.2s ago (web-1, web-2) (not read on web-4: unreachable)',
      'fleet lease: web-3: lease.json is not a lease',
    ]);
  });

  it('an expired holder and a stray piece are both named', () => {
    const s = summarizeLease([
      { where: 'web-1', lease: lease('a', 'r7'), ageMs: 40_000 },
      { where: 'web-2', lease: lease('a', 'r7'), ageMs: 40_000 },
      { where: 'web-3', lease: lease('b', 'r8'), ageMs: 1_000 },
    ]);
    expect(renderLease(s)).toEqual([
      'fleet lease: held by deploy rollout r7 by alice@laptop pid 42 since 2026-12-01T10:00:00.000Z, heartbeat 40s ago (EXPIRED: the next deploy takes it over) (web-1, web-2)',
      'fleet lease: web-3 has a piece of deploy rollout r8 by alice@laptop pid 42',
    ]);
  });
});
