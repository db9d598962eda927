import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { lockHold } from '../../../src/host/agent/ops/lock-hold.js';
import { hostFixture } from '../../support/host-fixture.js';
import { memoryIO } from '../../support/memory-io.js';

describe('a lock compromised under a running call', () => {
  it('aborts the call in flight, then ends the session with the lock lost', async () => {
    const host = await hostFixture();
    const m = memoryIO();
    let aborted: unknown;
    const holding = lockHold(host.config, m.io, {
      what: 'rollout',
      message: '',
      clock: systemClock,
      handle: (call, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            aborted = signal.reason;
            resolve({ type: 'reply', id: call.id, ok: true, data: {} });
          }),
        ),
    });
    await expect.poll(() => m.lines.some((l) => l.type === 'locked')).toBe(true);
    m.write(JSON.stringify({ call: { id: 1, op: 'stop', args: {} } }));
    // as if another process took it over: the holder's next refresh finds it gone
    await rm(`${host.config.host.lock}.lock`, { recursive: true, force: true });
    await expect(holding).rejects.toThrow(/lost the host lock/);
    expect(String(aborted)).toMatch(/lost the host lock/);
    expect(m.lines).toContainEqual(
      expect.objectContaining({ type: 'event', event: 'lock.compromised' }),
    );
  }, 15_000);
});
