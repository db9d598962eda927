import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { runProcess } from '../../../src/process/run.js';
import { eventually, isRunning } from '../host/helpers.js';
import { scratchDir } from '../../support/scratch.js';

/** A clock whose one sleep ends when `ready` holds: the timeout "runs out" on cue. */
const clockUntil = (ready: () => Promise<boolean>): Clock => ({
  now: () => Date.now(),
  sleep: async (_ms, signal) => {
    while (!(await ready())) {
      signal?.throwIfAborted();
      await new Promise((r) => setImmediate(r));
    }
  },
});

const pidIn = async (file: string): Promise<number | undefined> => {
  const text = (await readFile(file, 'utf8').catch(() => '')).trim();
  return text ? Number(text) : undefined;
};

describe('runProcess, the one local process runner', () => {
  it('captures stdout and stderr apart, and gives each line as it comes', async () => {
    const lines: string[] = [];
    const result = await runProcess(['sh', '-c', 'echo out; echo err >&2; printf "a\\rb"'], {
      onLine: (line) => lines.push(line),
    });
    expect(result).toMatchObject({ started: true, code: 0, stdout: 'out\na\rb', stderr: 'err' });
    expect(lines.sort()).toEqual(['a', 'b', 'err', 'out']);
  });

  it('times out on the injected clock and kills the whole process group', async () => {
    const dir = await scratchDir('handoff-run-');
    const pidFile = path.join(dir, 'child.pid');
    const result = await runProcess(['sh', '-c', `sleep 600 & echo $! > ${pidFile}; wait`], {
      timeoutMs: 300_000,
      clock: clockUntil(async () => (await pidIn(pidFile)) !== undefined),
    });
    expect(result).toMatchObject({ started: true, timedOut: true, endedBy: 'SIGKILL', code: 137 });
    const child = await pidIn(pidFile);
    await eventually(() => !isRunning(child ?? 0));
  });

  it('an abort sends the signal its reason names, to the group', async () => {
    const stop = new AbortController();
    const run = runProcess(['sleep', '600'], { signal: stop.signal });
    stop.abort('SIGINT');
    expect(await run).toMatchObject({ started: true, endedBy: 'SIGINT', code: 130 });
  });

  it('an abort whose reason is no signal sends SIGTERM; aborted before it starts, the same', async () => {
    const stop = new AbortController();
    stop.abort(new Error('lock lost'));
    expect(await runProcess(['sleep', '600'], { signal: stop.signal })).toMatchObject({
      endedBy: 'SIGTERM',
      code: 143,
    });
  });

  it('says a command that never ran, and whether it was not found', async () => {
    expect(await runProcess(['/nonexistent/handoff-cmd'])).toMatchObject({
      started: false,
      notFound: true,
    });
  });

  it('passes only the environment it is given, unless told to extend this one', async () => {
    process.env.HANDOFF_RUN_PROBE = 'outer';
    try {
      const only = await runProcess(['sh', '-c', 'echo "${HANDOFF_RUN_PROBE:-none} $A"'], {
        env: { A: '1', PATH: process.env.PATH },
      });
      expect(only).toMatchObject({ stdout: 'none 1' });
      const extended = await runProcess(['sh', '-c', 'echo "$HANDOFF_RUN_PROBE $A"'], {
        env: { A: '2' },
        extendEnv: true,
      });
      expect(extended).toMatchObject({ stdout: 'outer 2' });
    } finally {
      delete process.env.HANDOFF_RUN_PROBE;
    }
  });

  it('writes both streams to a file when asked, so a backgrounded daemon holds no pipe', async () => {
    const dir = await scratchDir('handoff-run-');
    const file = path.join(dir, 'logs', 'out.log');
    const result = await runProcess(['sh', '-c', 'echo one; echo two >&2'], { output: { file } });
    expect(result).toMatchObject({ started: true, code: 0, stdout: '', stderr: '' });
    expect((await readFile(file, 'utf8')).split('\n').sort()).toEqual(['', 'one', 'two']);
  });
});
