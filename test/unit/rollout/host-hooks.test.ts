import { describe, expect, it } from 'vitest';
import type { HookCall, HookName, Hooks } from '../../../src/hooks/hooks.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import { fleet } from '../../support/rollout-fleet.js';

/** Hooks that record each call; `fail` names the calls that exit 1. */
function recordingHooks(fail: (name: HookName, call: HookCall) => boolean = () => false) {
  const calls: string[] = [];
  const hooks: Hooks = {
    has: () => true,
    run(name, call) {
      calls.push(
        `${name} ${call.host ?? ''} ${call.release}${call.result ? ` ${call.result}` : ''}`,
      );
      return Promise.resolve(
        fail(name, call) ? { ok: false, detail: 'exited 1' } : { ok: true, detail: 'exited 0' },
      );
    },
  };
  return { hooks, calls };
}

const options = { release: 'r2', dryRun: false, rollback: true };

describe('pre-host and post-host hooks', () => {
  it('run around each host handshake, in the fleet order, post-host with its result', async () => {
    const f = fleet();
    const { hooks, calls } = recordingHooks();
    const result = await rollout({ ...f.deps, hooks }, options);
    expect(result.ok).toBe(true);
    expect(calls).toEqual([
      'pre-host web-1 r2',
      'post-host web-1 r2 deployed',
      'pre-host web-2 r2',
      'post-host web-2 r2 deployed',
      'pre-host web-3 r2',
      'post-host web-3 r2 deployed',
    ]);
    // prepare runs ahead of the handshake; the hooks frame lock … unlock
    const steps = result.hosts[0]?.steps.map((s) => s.step) ?? [];
    expect(steps.slice(0, 3)).toEqual(['prepare', 'pre-host', 'lock']);
    expect(steps.slice(-2)).toEqual(['unlock', 'post-host']);
  });

  it('a failing pre-host fails that host before its lock and drain, and stops the rollout', async () => {
    const f = fleet();
    const { hooks, calls } = recordingHooks(
      (name, call) => name === 'pre-host' && call.host === 'web-2',
    );
    const result = await rollout({ ...f.deps, hooks }, options);
    expect(result.ok).toBe(false);
    expect(result.hosts[1]).toMatchObject({
      host: 'web-2',
      result: 'failed',
      stoppedAt: 'pre-host',
      error: 'web-2: hook pre-host exited 1',
      leftDrained: false,
    });
    expect(f.actions(2)).toEqual([]);
    expect(result.notReached).toEqual(['web-3']);
    expect(calls.slice(2)).toEqual(['pre-host web-2 r2', 'post-host web-2 r2 failed']);
  });

  it('a failing post-host is reported on the host and changes nothing', async () => {
    const f = fleet();
    const { hooks } = recordingHooks((name) => name === 'post-host');
    const result = await rollout({ ...f.deps, hooks }, options);
    expect(result.ok).toBe(true);
    expect(result.hosts[0]?.steps.at(-1)).toMatchObject({ step: 'post-host', ok: false });
  });
});
