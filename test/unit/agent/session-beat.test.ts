import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentSession } from '../../../src/agent-client/session.js';
import { silentLog } from '../../../src/log.js';
import { HEARTBEAT } from '../../../src/protocol/ops.js';
import type { RemoteProcess } from '../../../src/remote/transport.js';

/** a holder that never answers: what the session wrote down its stdin, by op, and when */
function holder() {
  const written: { op: string; at: number }[] = [];
  const proc: RemoteProcess = {
    lines: { [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => undefined) }) },
    write: (line) =>
      void written.push({
        op: (JSON.parse(line) as { call: { op: string } }).call.op,
        at: Date.now(),
      }),
    end: () => undefined,
    exited: new Promise(() => undefined),
    kill: () => undefined,
  };
  const session = new AgentSession('web-1', proc, proc.lines[Symbol.asyncIterator](), silentLog);
  return {
    session,
    ops: () => written.map((w) => w.op),
    beats: () => written.filter((w) => w.op === 'heartbeat').length,
    /** the longest the holder went without a line, from the session's start to now */
    longestSilence: (start: number) =>
      Math.max(
        ...[start, ...written.map((w) => w.at), Date.now()]
          .slice(1)
          .map((at, i, all) => at - (i === 0 ? start : (all[i - 1] ?? start))),
      ),
  };
}

const call = (h: ReturnType<typeof holder>): void =>
  void h.session.call('lease', {}).catch(() => undefined);

afterEach(() => vi.useRealTimers());

describe('the session heartbeat, as the orchestrator sends it', () => {
  it('beats every 1.5 × HEARTBEAT.everyMs while nothing else goes down', async () => {
    vi.useFakeTimers();
    const h = holder();
    await vi.advanceTimersByTimeAsync(1.5 * HEARTBEAT.everyMs - 1);
    expect(h.beats()).toBe(0);
    await vi.advanceTimersByTimeAsync(1 + 3 * HEARTBEAT.everyMs);
    expect(h.ops()).toEqual(['heartbeat', 'heartbeat', 'heartbeat']);
    h.session.quiet();
  });

  it('needs no beat while calls go at least every HEARTBEAT.everyMs (the lease renewals)', async () => {
    vi.useFakeTimers();
    const h = holder();
    for (let i = 0; i < 6; i++) {
      call(h);
      await vi.advanceTimersByTimeAsync(HEARTBEAT.everyMs);
    }
    expect(h.ops()).toEqual(Array<string>(6).fill('lease'));
    h.session.quiet();
  });

  it('never leaves the holder more than 1.5 × everyMs without a line, half its silenceMs, whenever the calls go', async () => {
    vi.useFakeTimers();
    const start = Date.now();
    const h = holder();
    // calls at uneven times: bursts, a long wait, gaps just over and under everyMs
    for (const wait of [100, 100, 4_900, 5_100, 12_000, 2_600, 7_400, 5_001, 30_000]) {
      call(h);
      await vi.advanceTimersByTimeAsync(wait);
    }
    expect(h.beats()).toBeGreaterThan(0);
    expect(h.longestSilence(start)).toBeLessThanOrEqual(1.5 * HEARTBEAT.everyMs);
    expect(1.5 * HEARTBEAT.everyMs).toBeLessThanOrEqual(HEARTBEAT.silenceMs / 2);
    h.session.quiet();
  });
});
