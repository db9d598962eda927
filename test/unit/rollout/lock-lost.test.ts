import { describe, expect, it } from 'vitest';
import { AgentError, LockHeldError } from '../../../src/errors.js';
import { LOCK_LOST } from '../../../src/protocol/lines.js';
import { failureMessage } from '../../../src/cli/rollout/rollout-report.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import type { RolloutOptions } from '../../../src/rollout/types.js';
import { fleet } from '../../support/rollout-fleet.js';

const options: RolloutOptions = { release: 'r2', dryRun: false, rollback: true };

const STALE = {
  connected: true,
  said: {
    error:
      'lost the host lock /srv/app/.lock (Unable to update lock within the stale threshold); another process may hold it now',
  },
};

describe('a host lock lost mid-handshake', () => {
  it('with the connection: nothing can be done over it, the host is left drained, later hosts untouched', async () => {
    const f = fleet();
    f.host(1).onCall = (op) => {
      if (op === 'drain') f.host(1).loseLock({ connected: false });
    };
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(false);
    expect(result.hosts[0]).toMatchObject({ result: 'failed', leftDrained: true, lockLost: true });
    expect(f.actions(1)).toEqual(['lock', 'drain']);
    expect(f.host(1).drained).toBe(true);
    expect(f.log.events.map((e) => e.message).join('\n')).toMatch(
      /lost the connection during .*; left DRAINED/,
    );
    expect(f.actions(2)).toEqual([]);
  });

  it('to staleness before the stop, the connection up: takes it again over that connection and undrains', async () => {
    const f = fleet();
    f.host(1).onCall = (op) => {
      if (op === 'drain') f.host(1).loseLock(STALE);
    };
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(false);
    expect(result.hosts[0]).toMatchObject({ result: 'failed', leftDrained: false, lockLost: true });
    expect(failureMessage(result)).toBe(
      'rollout of r2 failed on web-1 at drain, where it lost its host lock; web-2, web-3 not reached',
    );
    expect(result.hosts[0]!.error).toMatch(
      /^lost the host lock to staleness during \S+ \(the agent: lost the host lock .*stale threshold.*\); took it again over the same connection, rolled back: undrained, its release never stopped$/,
    );
    // a second lock (a new holder), then the walk-back the handshake list gives a drain
    expect(f.actions(1)).toEqual(['lock', 'drain', 'lock', 'undrain', 'unlock']);
    expect(f.host(1)).toMatchObject({ drained: false, locked: false, release: 'r1' });
    expect(result.notReached).toEqual(['web-2', 'web-3']);
  });

  it('to staleness after the switch, the connection up: takes it again and rolls back to the release before', async () => {
    const f = fleet();
    f.host(1).onCall = (op) => {
      if (op === 'start' && f.host(1).release === 'r2') f.host(1).loseLock(STALE);
    };
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({ result: 'failed', leftDrained: false });
    expect(result.hosts[0]!.error).toMatch(
      /^lost the host lock to staleness during start .*; took it again over the same connection, rolled back to r1$/,
    );
    const after = f.actions(1).slice(f.actions(1).indexOf('start') + 1);
    expect(after).toEqual(['lock', 'stop', 'switch r1', 'start', 'verify', 'undrain', 'unlock']);
    expect(f.host(1)).toMatchObject({ drained: false, locked: false, release: 'r1' });
    expect(result.hosts[0]!.steps.find((s) => s.step === 'rollback')).toMatchObject({ ok: true });
  });

  it('to staleness under a call in flight: waits for the holder the agent said is ending, then rolls back', async () => {
    const f = fleet();
    const h = f.host(1);
    // every wait of the rollout lets the event loop turn: the holder's end comes a turn later
    const sleep = f.clock.sleep.bind(f.clock);
    f.clock.sleep = async (ms, signal) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return sleep(ms, signal);
    };
    h.onCall = (op) => {
      if (op !== 'start' || h.release !== 'r2') return;
      h.onCall = undefined;
      // the reply says why first; the holder's end comes after it
      h.failOn.set('start', new AgentError('web-1', LOCK_LOST, 'start aborted', 1));
      setTimeout(() => {
        h.failOn.delete('start');
        h.loseLock(STALE);
      }, 0);
    };
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({ result: 'failed', leftDrained: false });
    expect(result.hosts[0]!.error).toMatch(
      /^lost the host lock to staleness during start .*rolled back to r1$/,
    );
    expect(h.calls.filter((c) => c === 'lock')).toHaveLength(2);
    expect(h).toMatchObject({ drained: false, locked: false, release: 'r1' });
  });

  it('to staleness, when the holder the agent said is ending never ends: bounded, and says what is left', async () => {
    const f = fleet();
    const h = f.host(1);
    h.onCall = (op) => {
      if (op !== 'start' || h.release !== 'r2') return;
      // from here on, every call is refused as the lock is gone, and the holder never ends
      for (const later of ['start', 'stop', 'switch', 'verify', 'undrain', 'drain', 'lock'])
        h.failOn.set(later, new AgentError('web-1', LOCK_LOST, `${later} aborted`, 1));
    };
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({ result: 'failed', leftDrained: true, lockLost: true });
    expect(result.hosts[0]!.error).toBe(
      "the agent lost the host lock during start (web-1: start aborted) and its holder did not end within 5.0s: nothing more was done on the host; left DRAINED: 'deploy undrain web-1' once it is free, or the next 'deploy rollout' repairs it; check it with 'deploy status --hosts web-1'",
    );
    // nothing after the start that failed: no walk-back through a holder without its lock
    expect(f.actions(1).slice(f.actions(1).indexOf('start') + 1)).toEqual(['unlock']);
    expect(result.notReached).toEqual(['web-2', 'web-3']);
  });

  it('when the agent ended its session on silence, the connection up: rolls back the same way', async () => {
    const f = fleet();
    f.host(1).onCall = (op) => {
      if (op === 'drain') f.host(1).loseLock({ connected: true, said: { reason: 'silence' } });
    };
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({ result: 'failed', leftDrained: false });
    expect(result.hosts[0]!.error).toMatch(
      /^lost the host lock during \S+: the agent heard no heartbeat and ended its session; took it again/,
    );
    expect(f.host(1).drained).toBe(false);
  });

  it('to staleness, when someone else holds the lock now: says so and leaves the host drained', async () => {
    const f = fleet();
    f.host(1).onCall = (op) => {
      if (op !== 'drain') return;
      f.host(1).loseLock(STALE);
      f.host(1).failOn.set(
        'lock',
        new LockHeldError('web-1:lock', { what: 'lock exec', pid: 7, since: 'now' }),
      );
    };
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]).toMatchObject({ result: 'failed', leftDrained: true, lockLost: true });
    expect(result.hosts[0]!.error).toMatch(
      /^lost the host lock to staleness during .*; could not take it again to roll back \(lock web-1:lock is held by lock exec \(pid 7\).*\); left DRAINED: 'deploy undrain web-1' once it is free/,
    );
    expect(f.actions(1)).toEqual(['lock', 'drain', 'lock']);
    expect(f.host(1).drained).toBe(true);
  });

  it('a host that failed with its lock held says nothing of a lost lock', async () => {
    const f = fleet();
    f.host(1).failOn.set(
      'start',
      new AgentError('web-1', 'failed', 'the service would not start', 1),
    );
    const result = await rollout(f.deps, options);
    expect(result.hosts[0]?.lockLost).toBeUndefined();
    expect(failureMessage(result)).not.toMatch(/lock/);
  });
});
