import { describe, expect, it } from 'vitest';
import { addWindows, countsOf, type WindowCounts } from '../../../src/evidence/kit/counts.js';
import { windowDelta, type CounterReading } from '../../../src/evidence/kit/delta.js';

const reading = (over: Partial<CounterReading> = {}): CounterReading => ({
  epoch: '100@1700000000',
  requests: 1000,
  kinds: { http_5xx: 3, connect: 1, response: 0 },
  retried: 0,
  ...over,
});

describe('windowDelta', () => {
  it('reports the growth of every counter over the window', () => {
    const end = reading({ requests: 1500, kinds: { http_5xx: 5, connect: 1, response: 2 } });
    expect(windowDelta(reading(), end, 'web-1')).toEqual({
      kind: 'counted',
      counts: {
        requests: 500,
        failed: 4,
        kinds: { http_5xx: 2, connect: 0, response: 2 },
        retried: 0,
      },
    });
  });

  it('says a reload, never a negative or zero window, when the process changed', () => {
    const end = reading({ epoch: '200@1700000100', requests: 40, kinds: { http_5xx: 1 } });
    expect(windowDelta(reading(), end, 'web-1')).toEqual({
      kind: 'reset',
      since: { requests: 40, failed: 1, kinds: { http_5xx: 1 }, retried: 0 },
      reason: 'web-1: counters restarted (a reload or restart)',
    });
  });

  it('says which counters went back when the server was cleared or re-added', () => {
    const end = reading({ requests: 10, kinds: { http_5xx: 0, connect: 0, response: 0 } });
    const w = windowDelta(reading(), end, 'web-2');
    expect(w.kind).toBe('reset');
    expect(w.kind === 'reset' && w.reason).toBe(
      'web-2: counters went back (http_5xx, connect, requests): cleared, or the server was re-added',
    );
    expect(countsOf(w)).toEqual({ requests: 10, failed: 0, kinds: end.kinds, retried: 0 });
  });

  it('notices a retry counter going back alone', () => {
    const w = windowDelta(reading({ retried: 5 }), reading({ retried: 1 }), 'web-1');
    expect(w.kind === 'reset' && w.reason).toContain('(retries)');
  });

  it('keeps the latest latency figure and leaves out retries a source has none of', () => {
    const start = reading({ retried: undefined });
    const end = reading({ requests: 1100, retried: undefined, latencyMs: 12 });
    expect(windowDelta(start, end, 'x')).toEqual({
      kind: 'counted',
      counts: {
        requests: 100,
        failed: 0,
        kinds: { http_5xx: 0, connect: 0, response: 0 },
        latencyMs: 12,
      },
    });
  });

  it('counts a kind first seen at the end from zero', () => {
    const end = reading({ kinds: { http_5xx: 3, connect: 1, response: 0, no_server: 2 } });
    expect(countsOf(windowDelta(reading(), end, 'x')).kinds?.no_server).toBe(2);
  });
});

describe('addWindows', () => {
  const counted = (requests: number, failed: number, latencyMs?: number): WindowCounts => ({
    kind: 'counted',
    counts: {
      requests,
      failed,
      kinds: { http_5xx: failed },
      ...(latencyMs !== undefined && { latencyMs }),
    },
  });

  it('adds requests, failures by kind, and weighs the latencies by requests', () => {
    expect(addWindows(counted(100, 1, 10), counted(300, 2, 30))).toEqual({
      kind: 'counted',
      counts: { requests: 400, failed: 3, kinds: { http_5xx: 3 }, latencyMs: 25 },
    });
  });

  it('makes the sum a lower bound, with the reasons, when a part was reset', () => {
    const reset: WindowCounts = {
      kind: 'reset',
      since: { requests: 5, failed: 0 },
      reason: 'web-2: x',
    };
    expect(addWindows(counted(100, 1), reset)).toEqual({
      kind: 'reset',
      since: { requests: 105, failed: 1, kinds: { http_5xx: 1 } },
      reason: 'web-2: x',
    });
  });

  it('is unread when a part is unread', () => {
    const unread: WindowCounts = { kind: 'unread', reason: 'socket gone' };
    expect(addWindows(counted(1, 0), unread)).toBe(unread);
    expect(addWindows(unread, counted(1, 0))).toBe(unread);
    expect(countsOf(unread)).toEqual({ requests: 0, failed: 0 });
  });
});
