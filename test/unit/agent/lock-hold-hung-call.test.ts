import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { readLockStatus } from '../../../src/host/lock.js';
import { lockHold, type CallHandler } from '../../../src/host/agent/ops/lock-hold.js';
import type { AgentCall } from '../../../src/protocol/lines.js';
import { hostFixture } from '../../support/host-fixture.js';
import { memoryIO } from '../../support/memory-io.js';

/** A session whose `stop` hangs until its signal aborts (a runtime command that never returns). */
async function hungStop() {
  const host = await hostFixture();
  const m = memoryIO();
  const seen: string[] = [];
  const handle: CallHandler = async (call: AgentCall, signal) => {
    seen.push(`${call.op} started`);
    if (call.op === 'stop')
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    seen.push(`${call.op} ${signal.aborted ? 'aborted' : 'done'}`);
    return { type: 'reply', id: call.id, ok: true, data: {} };
  };
  const holding = lockHold(host.config, m.io, {
    what: 'rollout',
    message: 'release r2',
    clock: systemClock,
    handle,
  });
  await expect.poll(() => m.lines.some((l) => l.type === 'locked')).toBe(true);
  m.write(JSON.stringify({ call: { id: 1, op: 'stop', args: {} } }));
  await expect.poll(() => seen).toContain('stop started');
  return { host, m, seen, holding };
}

describe('lock-hold while a call that changes the host hangs (issue 34)', () => {
  it('still reads the end of stdin: the hung call is aborted, then the lock is released', async () => {
    const s = await hungStop();
    s.m.close();
    expect(await s.holding).toEqual({ released: true, reason: 'stdin closed' });
    expect(s.seen).toEqual(['stop started', 'stop aborted']);
    expect((await readLockStatus(s.host.config.host.lock)).locked).toBe(false);
  });

  it('still reads `release`', async () => {
    const s = await hungStop();
    s.m.write('release');
    expect(await s.holding).toEqual({ released: true, reason: 'released' });
    expect(s.seen).toEqual(['stop started', 'stop aborted']);
  });

  it('keeps the order: a call sent after the hung one starts only once it ended', async () => {
    const s = await hungStop();
    s.m.write(JSON.stringify({ call: { id: 2, op: 'status', args: {} } }));
    s.m.write(JSON.stringify({ call: { id: 3, op: 'start', args: {} } }));
    s.m.close();
    await s.holding;
    expect(s.seen.slice(0, 2)).toEqual(['stop started', 'stop aborted']);
    expect(s.m.lines.filter((l) => l.type === 'reply').map((l) => l.id)).toEqual([1, 2, 3]);
  });
});
