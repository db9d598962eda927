import { describe, expect, it } from 'vitest';
import { timingModel } from '../../../src/timing/model.js';
import { input, only, s } from './fixture.js';

const ids = (model: ReturnType<typeof timingModel>) => model.invariants.map((i) => i.id);

describe('connection-termination', () => {
  const nlb = (delay: number, overlap = s(15), stopTimeout = s(150)) =>
    timingModel(
      input({
        drain: { method: 'deregister', overlap, stopTimeout },
        settings: { deregistrationDelay: delay, connectionTermination: true },
      }),
    );

  it('holds when the overlap and the whole stop fit in the delay', () => {
    expect(only(nlb(s(165)), 'connection-termination')).toEqual({
      id: 'connection-termination',
      severity: 'error',
      ok: true,
      message:
        'connection termination on: overlap 15s + stop_timeout 2m30s = 2m45s ≤ deregistration delay 2m45s: ok',
    });
  });

  it('fails one millisecond short, naming the delay it needs', () => {
    const inv = only(nlb(s(165) - 1), 'connection-termination');
    expect(inv.ok).toBe(false);
    expect(inv.message).toBe(
      'connection termination on: overlap 15s + stop_timeout 2m30s = 2m45s > deregistration delay 2m44s999ms: the NLB resets every connection still open to the target when the delay ends, while its services may still be serving; raise the deregistration delay to at least 2m45s, or turn deregistration_delay.connection_termination.enabled off',
    );
  });

  it('fails the check as a whole (an error)', () => {
    const model = nlb(s(60));
    expect(model.invariants.filter((i) => !i.ok).map((i) => i.id)).toEqual([
      'connection-termination',
    ]);
  });

  it('is not raised without the attribute, or with drain.method health', () => {
    const off = timingModel(
      input({ drain: { method: 'deregister' }, settings: { deregistrationDelay: s(60) } }),
    );
    const health = timingModel(
      input({ settings: { deregistrationDelay: s(60), connectionTermination: true } }),
    );
    expect(ids(off)).not.toContain('connection-termination');
    expect(ids(health)).not.toContain('connection-termination');
  });
});

describe('check-protocol', () => {
  it('refuses drain.method health behind a TCP health check', () => {
    const inv = only(timingModel(input({ settings: { checkProtocol: 'TCP' } })), 'check-protocol');
    expect(inv).toMatchObject({ severity: 'error', ok: false });
    expect(inv.message).toContain("the drain's 503 passes it and the target never leaves rotation");
  });

  it('is not raised for an HTTP check, or with drain.method deregister', () => {
    const http = timingModel(input({ settings: { checkProtocol: 'HTTP' } }));
    const deregister = timingModel(
      input({
        drain: { method: 'deregister' },
        settings: { checkProtocol: 'TCP', deregistrationDelay: s(60) },
      }),
    );
    expect(ids(http)).not.toContain('check-protocol');
    expect(ids(deregister)).not.toContain('check-protocol');
  });
});
