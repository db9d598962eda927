import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentSession } from '../../../src/agent-client/session.js';
import { silentLog } from '../../../src/log.js';
import { HEARTBEAT } from '../../../src/protocol/ops.js';
import type { RemoteProcess } from '../../../src/remote/transport.js';

/** a holder that never answers: what the session wrote down its stdin, by op */
function holder() {
  const written: string[] = [];
  const proc: RemoteProcess = {
    lines: { [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => undefined) }) },
    write: (line) => void written.push((JSON.parse(line) as { call: { op: string } }).call.op),
    end: () => undefined,
    exited: new Promise(() => undefined),
    kill: () => undefined,
  };
  const session = new AgentSession('web-1', proc, proc.lines[Symbol.asyncIterator](), silentLog);
  return { session, written, beats: () => written.filter((op) => op === 'heartbeat').length };
}

afterEach(() => vi.useRealTimers());

describe('the session heartbeat, as the orchestrator sends it', () => {
  it('beats every HEARTBEAT.everyMs while nothing else goes down', async () => {
    vi.useFakeTimers();
    const h = holder();
    await vi.advanceTimersByTimeAsync(3 * HEARTBEAT.everyMs);
    expect(h.written).toEqual(['heartbeat', 'heartbeat', 'heartbeat']);
    h.session.quiet();
  });

  it('skips a beat when a call went since the last one: never more than two beats without a line', async () => {
    vi.useFakeTimers();
    const h = holder();
    // a lease renewal just after each beat, as the fleet lease's are
    for (let i = 0; i < 4; i++) {
      void h.session.call('lease', {}).catch(() => undefined);
      await vi.advanceTimersByTimeAsync(HEARTBEAT.everyMs);
    }
    expect(h.beats()).toBe(0);
    // then silence: the next beat goes at once, and the gap stays within the holder's bound
    await vi.advanceTimersByTimeAsync(HEARTBEAT.everyMs);
    expect(h.written.at(-1)).toBe('heartbeat');
    expect(2 * HEARTBEAT.everyMs).toBeLessThan(HEARTBEAT.silenceMs);
    h.session.quiet();
  });
});
