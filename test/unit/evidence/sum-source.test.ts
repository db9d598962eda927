import { describe, expect, it } from 'vitest';
import type { WindowCounts } from '../../../src/evidence/kit/counts.js';
import type { EvidenceSource } from '../../../src/evidence/kit/source.js';
import { SumCountSource } from '../../../src/evidence/sum-source.js';

function source(label: string, counts: Record<string, WindowCounts>): EvidenceSource {
  return {
    kind: 'balancer',
    label,
    open: () =>
      Promise.resolve({
        openedAt: 10,
        read: () => Promise.resolve(new Map(Object.entries(counts))),
      }),
  };
}
const counted = (requests: number, failed: number): WindowCounts => ({
  kind: 'counted',
  counts: { requests, failed },
});

describe('an HAProxy pair counted as one', () => {
  it("adds each instance's share, host by host, under both names", async () => {
    const sum = new SumCountSource([
      source('lb-a (haproxy be)', { 'web-1': counted(600, 1), 'web-2': counted(500, 0) }),
      source('lb-b (haproxy be)', { 'web-1': counted(400, 2), 'web-2': counted(700, 0) }),
    ]);
    expect(sum.label).toBe('lb-a (haproxy be) + lb-b (haproxy be)');
    const read = await (await sum.open(['web-1', 'web-2'])).read();
    expect(read.get('web-1')).toEqual(counted(1000, 3));
    expect(read.get('web-2')).toEqual(counted(1200, 0));
  });

  it('a host one instance cannot count is unread, not the other share passed off as all', async () => {
    const sum = new SumCountSource([
      source('lb-a', { 'web-1': counted(600, 0) }),
      source('lb-b', { 'web-1': { kind: 'unread', reason: 'socket gone' } }),
    ]);
    const read = await (await sum.open(['web-1'])).read();
    expect(read.get('web-1')).toEqual({ kind: 'unread', reason: 'socket gone' });
  });

  it('a reset in one instance makes the sum a lower bound, said', async () => {
    const sum = new SumCountSource([
      source('lb-a', { 'web-1': counted(600, 0) }),
      source('lb-b', {
        'web-1': { kind: 'reset', since: { requests: 50, failed: 0 }, reason: 'lb-b reloaded' },
      }),
    ]);
    const read = await (await sum.open(['web-1'])).read();
    expect(read.get('web-1')).toMatchObject({
      kind: 'reset',
      since: { requests: 650 },
      reason: 'lb-b reloaded',
    });
  });
});
