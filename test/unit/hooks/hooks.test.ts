import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../../src/clock.js';
import { UsageError } from '../../../src/errors.js';
import { loadHooks, type HookContext } from '../../../src/hooks/hooks.js';
import { MemoryLog } from '../../../src/log.js';
import { testConfig } from '../../support/config.js';
import { scratchDir } from '../../support/scratch.js';

let dir: string;
let hooks: string;
beforeEach(async () => {
  dir = await scratchDir('handoff-hooks-');
  hooks = path.join(dir, '.handoff', 'hooks');
  await mkdir(hooks, { recursive: true });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function hook(name: string, body: string, mode = 0o755): Promise<void> {
  const file = path.join(hooks, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, mode);
}

function context(log = new MemoryLog(), clock: Clock = systemClock): HookContext {
  return {
    config: testConfig({ source: path.join(dir, 'deploy.yml') }),
    clock,
    log,
    hosts: ['web-1', 'web-2'],
    performer: 'ci@runner',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HANDOFF_HOST: 'stale' },
  };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('hooks', () => {
  it('runs a hook with the HANDOFF_* variables, its output streamed line by line with its name', async () => {
    await hook(
      'post-host',
      'echo "$HANDOFF_RELEASE|$HANDOFF_HOSTS|$HANDOFF_HOST|$HANDOFF_RESULT|$HANDOFF_PERFORMER"\necho oops >&2',
    );
    const log = new MemoryLog();
    const run = await (
      await loadHooks(context(log))
    ).run('post-host', { release: 'r2', host: 'web-2', result: 'deployed' });
    expect(run).toEqual({ ok: true, detail: 'exited 0' });
    expect(log.events.map((e) => `${e.host}: ${e.message}`)).toEqual([
      'web-2: hook post-host: r2|web-1,web-2|web-2|deployed|ci@runner',
      'web-2: hook post-host: oops',
    ]);
  });

  it('blanks the variables a hook has no value for, so none leaks in from the environment', async () => {
    await hook('pre-deploy', 'echo "[$HANDOFF_HOST][$HANDOFF_RESULT]"');
    const log = new MemoryLog();
    await (await loadHooks(context(log))).run('pre-deploy', { release: 'r2' });
    expect(log.events.map((e) => e.message)).toEqual(['hook pre-deploy: [][]']);
  });

  it('reports a non-zero exit as a failure with its code', async () => {
    await hook('pre-deploy', 'echo "not today"; exit 3');
    const run = await (await loadHooks(context())).run('pre-deploy', { release: 'r2' });
    expect(run).toEqual({ ok: false, detail: 'exited 3' });
  });

  it('kills a hook that outlives hooks.timeout, and what it started with it', async () => {
    const pidFile = path.join(dir, 'child.pid');
    await hook('pre-host', `sleep 600 &\necho $! > ${pidFile}\nwait`);
    // hooks.timeout (5m) runs out as soon as the hook has started its child
    const clock: Clock = {
      now: () => Date.now(),
      sleep: async () => {
        while (!(await readFile(pidFile, 'utf8').catch(() => '')).trim())
          await new Promise((r) => setImmediate(r));
      },
    };
    const runner = await loadHooks(context(new MemoryLog(), clock));
    const run = await runner.run('pre-host', { release: 'r2', host: 'web-1' });
    expect(run).toEqual({ ok: false, detail: 'killed after hooks.timeout (5m)' });
    const pid = Number(await readFile(pidFile, 'utf8'));
    // the group was sent SIGKILL: wait for the child to be gone, never for a fixed time
    const deadline = Date.now() + 5000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    expect(alive(pid)).toBe(false);
  });

  it('refuses a hook file that is not executable, in one line, before anything runs', async () => {
    await hook('post-deploy', 'echo hi', 0o644);
    const failure = await loadHooks(context()).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(UsageError);
    expect((failure as Error).message).toMatch(
      /^hook .*\.handoff\/hooks\/post-deploy is not executable: 'chmod \+x' it, or remove it$/,
    );
  });

  it('runs nothing for a hook without a file, and ignores other files there', async () => {
    await hook('pre-deploy.sample', 'exit 1');
    const runner = await loadHooks(context());
    expect(runner.has('pre-deploy')).toBe(false);
    expect(await runner.run('pre-deploy', { release: 'r2' })).toEqual({
      ok: true,
      detail: 'no hook',
    });
  });
});
