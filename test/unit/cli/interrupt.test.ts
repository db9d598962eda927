import { describe, expect, it } from 'vitest';
import { interruptSignal } from '../../../src/cli/connections.js';
import { MemoryLog } from '../../../src/log.js';

describe('interruptSignal (CI cancel: SIGINT, then SIGTERM, then SIGKILL)', () => {
  it('refuses SIGTSTP, stops at the next safe point on the first signal and escalates to rolling back now on the second', () => {
    const log = new MemoryLog();
    const interrupt = interruptSignal(log);
    try {
      process.emit('SIGTSTP');
      expect(interrupt.signal.aborted).toBe(false);
      process.emit('SIGINT');
      expect(interrupt.signal.aborted).toBe(true);
      expect(interrupt.urgent.aborted).toBe(false);
      process.emit('SIGTERM');
      expect(interrupt.urgent.aborted).toBe(true);
      process.emit('SIGTERM');
      const said = log.events.filter((e) => e.event === 'interrupt').map((e) => e.message);
      expect(said).toEqual([
        expect.stringMatching(/^SIGTSTP: not stopping while hosts are locked or drained/),
        expect.stringMatching(/^SIGINT: finishing the current step, then undoing it/),
        expect.stringMatching(/^SIGTERM again: rolling back now/),
      ]);
    } finally {
      interrupt.dispose();
    }
    expect(process.listenerCount('SIGINT')).toBe(0);
  });

  it('takes SIGHUP (a closed terminal, a runner that hangs up) as an interrupt, not as node’s exit at once', () => {
    const log = new MemoryLog();
    const interrupt = interruptSignal(log);
    try {
      process.emit('SIGHUP');
      expect(interrupt.signal.aborted).toBe(true);
      expect(interrupt.urgent.aborted).toBe(false);
      process.emit('SIGHUP');
      expect(interrupt.urgent.aborted).toBe(true);
      const said = log.events.filter((e) => e.event === 'interrupt').map((e) => e.message);
      expect(said).toEqual([
        expect.stringMatching(/^SIGHUP: finishing the current step, then undoing it/),
        expect.stringMatching(/^SIGHUP again: rolling back now/),
      ]);
    } finally {
      interrupt.dispose();
    }
    expect(process.listenerCount('SIGHUP')).toBe(0);
  });
});
