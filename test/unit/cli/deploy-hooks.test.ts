import { describe, expect, it } from 'vitest';
import { BlockedError } from '../../../src/errors.js';
import type { HookName, Hooks } from '../../../src/hooks/hooks.js';
import { MemoryLog } from '../../../src/log.js';
import type { RolloutResult } from '../../../src/rollout/types.js';
import { withDeployHooks } from '../../../src/cli/deploy-hooks.js';

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

describe('pre-deploy and post-deploy', () => {
  it('a failing pre-deploy refuses with exit 3 and never starts the rollout', async () => {
    const { hooks, calls } = hooksFailing(['pre-deploy']);
    let started = false;
    const failure = await withDeployHooks(
      hooks,
      'r2',
      new MemoryLog(),
      new AbortController().signal,
      () => {
        started = true;
        return Promise.resolve(result(true));
      },
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BlockedError);
    expect((failure as BlockedError).exitCode).toBe(3);
    expect((failure as Error).message).toBe(
      'hook pre-deploy exited 1: nothing was touched on any host',
    );
    expect(started).toBe(false);
    expect(calls).toEqual(['pre-deploy r2']);
  });

  it('post-deploy runs after the rollout with its result', async () => {
    const { hooks, calls } = hooksFailing([]);
    await withDeployHooks(hooks, 'r2', new MemoryLog(), new AbortController().signal, () =>
      Promise.resolve(result(false)),
    );
    expect(calls).toEqual(['pre-deploy r2', 'post-deploy r2 failed']);
  });

  it('post-deploy runs even when the rollout is refused, with blocked, and the refusal stands', async () => {
    const { hooks, calls } = hooksFailing(['post-deploy']);
    const log = new MemoryLog();
    const failure = await withDeployHooks(hooks, 'r2', log, new AbortController().signal, () =>
      Promise.reject(new BlockedError('preflight: host lock held on web-1')),
    ).catch((e: unknown) => e);
    expect((failure as Error).message).toBe('preflight: host lock held on web-1');
    expect(calls).toEqual(['pre-deploy r2', 'post-deploy r2 blocked']);
    expect(log.events.map((e) => `${e.level} ${e.message}`)).toEqual([
      'warn hook post-deploy exited 1',
    ]);
  });
});
