import { beforeEach, describe, expect, it } from 'vitest';
import { BlockedError } from '../../../src/errors.js';
import type { HookName, Hooks } from '../../../src/hooks/hooks.js';
import { MemoryLog } from '../../../src/log.js';
import type { RolloutResult } from '../../../src/rollout/types.js';
import { withDeployHooks } from '../../../src/cli/rollout/deploy-hooks.js';

function hooksFailing(failing: HookName[]) {
  const calls: string[] = [];
  const hooks: Hooks = {
    has: () => true,
    run(name, call) {
      calls.push(`${name} ${call.release}${call.result ? ` ${call.result}` : ''}`);
      const ok = !failing.includes(name);
      return Promise.resolve({ ok, detail: ok ? 'exited 0' : 'exited 1' });
    },
  };
  return { hooks, calls };
}

const result = (ok: boolean): RolloutResult => ({
  ok,
  release: 'r2',
  hosts: [],
  notReached: [],
  elapsed_ms: 1,
});

/** A rollout holding a fake fleet lease, as rollout-command.ts composes them; the trail says when it was given back. */
function hookedRollout(
  hooks: Hooks,
  calls: string[],
  deploy: () => Promise<RolloutResult>,
  lease: 'held' | 'refused' = 'held',
): Promise<unknown> {
  return withDeployHooks(hooks, 'r2', log, async (deployHooks) => {
    if (lease === 'refused')
      throw new BlockedError('the fleet lease is held (on web-1) by deploy rollout r1');
    try {
      await deployHooks.around(new AbortController().signal, deploy);
    } finally {
      calls.push('lease given back');
    }
  }).catch((e: unknown) => e);
}

let log = new MemoryLog();
beforeEach(() => {
  log = new MemoryLog();
});

describe('pre-deploy and post-deploy', () => {
  it('a failing pre-deploy refuses with exit 3, never starts the rollout, and post-deploy hears of it', async () => {
    const { hooks, calls } = hooksFailing(['pre-deploy']);
    let started = false;
    const failure = await hookedRollout(hooks, calls, () => {
      started = true;
      return Promise.resolve(result(true));
    });
    expect(failure).toBeInstanceOf(BlockedError);
    expect((failure as BlockedError).exitCode).toBe(3);
    expect((failure as Error).message).toBe(
      'hook pre-deploy exited 1: nothing was touched on any host',
    );
    expect(started).toBe(false);
    expect(calls).toEqual(['pre-deploy r2', 'post-deploy r2 blocked', 'lease given back']);
  });

  it('post-deploy runs after the rollout with its result, before the fleet lease is given back', async () => {
    const { hooks, calls } = hooksFailing([]);
    expect(await hookedRollout(hooks, calls, () => Promise.resolve(result(false)))).toBe(undefined);
    expect(calls).toEqual(['pre-deploy r2', 'post-deploy r2 failed', 'lease given back']);
  });

  it('post-deploy runs even when preflight refuses, with blocked, and the refusal stands', async () => {
    const { hooks, calls } = hooksFailing(['post-deploy']);
    const failure = await hookedRollout(hooks, calls, () =>
      Promise.reject(new BlockedError('preflight: host lock held on web-1')),
    );
    expect((failure as Error).message).toBe('preflight: host lock held on web-1');
    expect(calls).toEqual(['pre-deploy r2', 'post-deploy r2 blocked', 'lease given back']);
    expect(log.events.map((e) => `${e.level} ${e.message}`)).toEqual([
      'warn hook post-deploy exited 1',
    ]);
  });

  it('a rollout the fleet lease refuses runs no pre-deploy, and post-deploy once with blocked (issue 34)', async () => {
    const { hooks, calls } = hooksFailing([]);
    const failure = await hookedRollout(
      hooks,
      calls,
      () => Promise.resolve(result(true)),
      'refused',
    );
    expect(failure).toBeInstanceOf(BlockedError);
    expect((failure as Error).message).toMatch(/^the fleet lease is held/);
    expect(calls).toEqual(['post-deploy r2 blocked']);
  });

  it('a rollout that stands down as superseded runs post-deploy once with superseded', async () => {
    const { hooks, calls } = hooksFailing([]);
    await withDeployHooks(hooks, 'r2', log, (deployHooks) => deployHooks.stoodDown('superseded'));
    expect(calls).toEqual(['post-deploy r2 superseded']);
  });

  it('an error after the rollout (its exit) does not run post-deploy twice', async () => {
    const { hooks, calls } = hooksFailing([]);
    const failure = await withDeployHooks(hooks, 'r2', log, async (deployHooks) => {
      await deployHooks.around(new AbortController().signal, () => Promise.resolve(result(false)));
      throw new Error('1 host failed');
    }).catch((e: unknown) => e);
    expect((failure as Error).message).toBe('1 host failed');
    expect(calls).toEqual(['pre-deploy r2', 'post-deploy r2 failed']);
  });
});
