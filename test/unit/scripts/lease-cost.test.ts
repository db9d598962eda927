import { describe, expect, it } from 'vitest';
import { formatLeaseCost, leaseCost } from '../../../scripts/bench/lease-cost.js';

const line = (event: string, fields: Record<string, unknown>) =>
  JSON.stringify({ level: 'debug', event, message: event, fields });

describe("the fleet lease's cost, from a rollout's --json events", () => {
  it('reads the take (less the sessions it opened first), the release and the renewals', () => {
    const stdout = [
      line('lease.taken', { id: 'x', waited_ms: 391, connect_ms: 350 }),
      line('step.start', { step: 'lock' }),
      line('lease.released', { release_ms: 12, renewals: 4, renew_ms: 30 }),
      '{"event":"result","ok":true}',
    ].join('\n');
    const cost = leaseCost(stdout);
    expect(cost).toEqual({ takeMs: 41, connectMs: 350, releaseMs: 12, renewals: 4, renewMs: 30 });
    expect(formatLeaseCost(cost)).toBe(
      'take 41 (after connecting 350) · release 12 · 4 renewals, 30 ms',
    );
  });

  it('a stream without the lease events is an error, not a zero', () => {
    expect(() => leaseCost('{"event":"result","ok":true}\n')).toThrow('no lease.taken');
  });
});
