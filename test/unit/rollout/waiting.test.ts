import { describe, expect, it } from 'vitest';
import { everyHost, unlessAborted } from '../../../src/rollout/handshake/waiting.js';

const hosts = (...names: string[]) => names.map((name) => ({ name, address: name, target: name }));

describe('unlessAborted', () => {
  it('answers what was asked when the signal stays quiet, its rejection too', async () => {
    await expect(unlessAborted(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
    await expect(
      unlessAborted(Promise.reject(new Error('no')), new AbortController().signal),
    ).rejects.toThrow('no');
  });

  it("rejects with the signal's reason once it aborts, before the answer comes", async () => {
    const cut = new AbortController();
    const waiting = unlessAborted(new Promise(() => undefined), cut.signal);
    cut.abort(new Error('second Ctrl-C'));
    await expect(waiting).rejects.toThrow('second Ctrl-C');
  });

  it('rejects at once for a signal already aborted', async () => {
    const cut = new AbortController();
    cut.abort(new Error('gone'));
    await expect(unlessAborted(Promise.resolve(1), cut.signal)).rejects.toThrow('gone');
  });
});

describe('everyHost', () => {
  it('calls once, when the last host of the wave has called, whatever the order or repeats', () => {
    const calls: string[] = [];
    const arrived = everyHost(hosts('web-1', 'web-2', 'web-3'), () => calls.push('all'));
    arrived('web-2');
    arrived('web-2');
    arrived('web-9');
    arrived('web-1');
    expect(calls).toEqual([]);
    arrived('web-3');
    arrived('web-3');
    expect(calls).toEqual(['all']);
  });

  it('calls at once for an empty wave', () => {
    const calls: string[] = [];
    everyHost([], () => calls.push('all'));
    expect(calls).toEqual(['all']);
  });
});
