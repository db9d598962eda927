import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { lockHold, type CallHandler } from '../../../src/host/agent/ops/lock-hold.js';
import { LOCK_LOST } from '../../../src/protocol/lines.js';
import { hostFixture } from '../../support/host-fixture.js';
import { memoryIO } from '../../support/memory-io.js';

/** A holder whose `handle` is given, its lock taken, one `stop` call sent, and its lock removed under it. */
async function compromisedUnder(handle: CallHandler) {
  const host = await hostFixture();
  const m = memoryIO();
  const holding = lockHold(host.config, m.io, {
    what: 'rollout',
    message: '',
    clock: systemClock,
    handle,
  });
  await expect.poll(() => m.lines.some((l) => l.type === 'locked')).toBe(true);
  m.write(JSON.stringify({ call: { id: 1, op: 'stop', args: {} } }));
  // as if another process took it over: the holder's next refresh finds it gone
  await rm(`${host.config.host.lock}.lock`, { recursive: true, force: true });
  return { holding, lines: m.lines };
}

describe('a lock compromised under a running call', () => {
  it('aborts the call in flight, then ends the session with the lock lost', async () => {
    let aborted: unknown;
    const { holding, lines } = await compromisedUnder(
      (call, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            aborted = signal.reason;
            resolve({ type: 'reply', id: call.id, ok: true, data: {} });
          }),
        ),
    );
    await expect(holding).rejects.toThrow(/lost the host lock/);
    expect(String(aborted)).toMatch(/lost the host lock/);
    expect(lines).toContainEqual(
      expect.objectContaining({ type: 'event', event: 'lock.compromised' }),
    );
  }, 15_000);

  it('marks the failed reply of a call the loss cut short as lock-lost, before the session ends', async () => {
    const { holding, lines } = await compromisedUnder(
      (call, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () =>
            resolve({
              type: 'reply',
              id: call.id,
              ok: false,
              error: { code: 'OperationError', message: 'stop aborted', exit: 1 },
            }),
          ),
        ),
    );
    await expect(holding).rejects.toThrow(/lost the host lock/);
    expect(lines).toContainEqual({
      type: 'reply',
      id: 1,
      ok: false,
      error: { code: LOCK_LOST, message: 'stop aborted', exit: 1 },
    });
  }, 15_000);
});
