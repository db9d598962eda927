import { describe, expect, it } from 'vitest';
import { breakLease } from '../../../src/cli/lease/lease-break-command.js';
import type { Output } from '../../../src/cli/output.js';
import { UsageError } from '../../../src/errors.js';
import { MemoryLog } from '../../../src/log.js';
import type { LeaseRecord, LeaseRequest } from '../../../src/protocol/lease.js';
import type { LeaseStore, LeaseView } from '../../../src/rollout/lease/store.js';

const record: LeaseRecord = {
  version: 1,
  id: 'job-1',
  holder: { user: 'alice', host: 'laptop', pid: 42 },
  command: 'rollout',
  release: 'r7',
  started: '2026-12-01T10:00:00.000Z',
  heartbeat: '2026-12-01T10:00:04.000Z',
  ttlMs: 30_000,
};
const operator: LeaseRequest = {
  id: 'op-1',
  holder: { user: 'bob', host: 'ops', pid: 7 },
  command: 'lease break',
};

/** a store that answers `views` and counts the breaks asked of it */
function fakeStore(views: readonly LeaseView[]) {
  const breaks: LeaseRequest[] = [];
  const store: LeaseStore = {
    take: () => Promise.reject(new Error('not asked')),
    renew: () => Promise.reject(new Error('not asked')),
    release: () => Promise.resolve(),
    read: () => Promise.resolve(views),
    break: (request) => {
      breaks.push(request);
      return Promise.resolve(views);
    },
  };
  return { store, breaks };
}

function memoryOutput() {
  const log = new MemoryLog();
  const texts: string[] = [];
  const results: { ok: boolean; data?: Record<string, unknown> }[] = [];
  const out: Output = {
    json: false,
    emit: (e) => log.emit(e),
    text: (t) => void texts.push(t),
    result: (ok, data) => void results.push({ ok, ...(data && { data }) }),
    raw: () => undefined,
  };
  return { out, log, texts, results };
}

describe('deploy lease break', () => {
  it('without --yes: shows the holder, breaks nothing, exit 2 saying how', async () => {
    const { store, breaks } = fakeStore([
      { where: 'etcd /handoff/api/lease', lease: record, ageMs: 1_000 },
    ]);
    const { out, texts } = memoryOutput();
    const breaking = breakLease(store, out, operator, false);
    await expect(breaking).rejects.toBeInstanceOf(UsageError);
    await expect(breaking).rejects.toThrow(/run it again with --yes$/);
    expect(breaks).toEqual([]);
    expect(texts).toEqual([
      'fleet lease: held by deploy rollout r7 by alice@laptop pid 42 since 2026-12-01T10:00:00.000Z, heartbeat 1.0s ago (etcd /handoff/api/lease)',
    ]);
  });

  it('with --yes: one warning per holder naming every place, by whom; the result lists it', async () => {
    const { store, breaks } = fakeStore([
      { where: 'web-1', lease: record, ageMs: 1_000 },
      { where: 'web-2', lease: record, ageMs: 1_000 },
      { where: 'web-3', unreachable: 'connection refused' },
    ]);
    const { out, log, results } = memoryOutput();
    await breakLease(store, out, operator, true);
    expect(breaks).toEqual([operator]);
    expect(log.events).toEqual([
      expect.objectContaining({
        level: 'warn',
        event: 'lease.broken',
        message:
          'broke the fleet lease of deploy rollout r7 by alice@laptop pid 42 (on web-1, web-2; by bob@ops)',
      }),
    ]);
    expect(results).toEqual([
      { ok: true, data: { broken: [{ where: 'web-1, web-2', lease: record }] } },
    ]);
  });

  it('a free lease: nothing to break, still a success', async () => {
    const { store } = fakeStore([{ where: 'etcd /handoff/api/lease' }]);
    const { out, log, texts, results } = memoryOutput();
    await breakLease(store, out, operator, true);
    expect(log.events).toEqual([]);
    expect(texts).toEqual(['fleet lease: free, nothing to break']);
    expect(results).toEqual([{ ok: true, data: { broken: [] } }]);
  });

  it('a value that is not a lease, removed: said as such, never as free', async () => {
    const { store } = fakeStore([{ where: 'etcd /handoff/api/lease', problem: 'not a lease' }]);
    const { out, log, texts, results } = memoryOutput();
    await breakLease(store, out, operator, true);
    expect(log.events.map((e) => e.message)).toEqual([
      'removed what was not a fleet lease (on etcd /handoff/api/lease; by bob@ops)',
    ]);
    expect(texts).toEqual([]);
    expect(results).toEqual([
      {
        ok: true,
        data: {
          broken: [],
          unreadable: [{ where: 'etcd /handoff/api/lease', problem: 'not a lease' }],
        },
      },
    ]);
  });
});
