import { describe, expect, it, vi } from 'vitest';
import { AgentClient } from '../../../src/agent-client/client.js';
import { AgentError } from '../../../src/errors.js';
import { toFlags } from '../../../src/protocol/args.js';
import { HEARTBEAT } from '../../../src/protocol/ops.js';
import { encodePublish, releaseFile } from '../../../src/host/release-files.js';
import { MemoryLog } from '../../../src/log.js';
import type {
  ExecOptions,
  ExecResult,
  RemoteProcess,
  Transport,
} from '../../../src/remote/transport.js';

/** A transport that records every command and answers like an agent would. */
class RecordingTransport implements Transport {
  readonly host = 'web-1';
  readonly execs: string[][] = [];
  readonly written: string[] = [];
  /** what the next execs answer */
  answer: ExecResult = {
    code: 0,
    stdout: '{"type":"result","ok":true,"data":{"done":true}}\n',
    stderr: '',
  };
  /** the first line a spawned agent writes; by default ready (--defer) or locked */
  firstLine: string | undefined;
  /** whether a spawned agent exits when its stdin ends (a real one may take its time) */
  exitOnEnd = true;
  /** what a holder answers to `release` */
  releaseAnswer = '{"type":"result","ok":true,"data":{"released":true,"reason":"released"}}';
  /** session calls answered with an error, by operation */
  refuse: Record<string, { code: string; message: string; exit: number }> = {};
  /** the connection is gone: every exec rejects */
  dropped = false;
  readonly options: (ExecOptions | undefined)[] = [];
  exec(argv: readonly string[], options?: ExecOptions): Promise<ExecResult> {
    this.execs.push([...argv]);
    this.options.push(options);
    if (this.dropped) return Promise.reject(new Error('web-1: the connection dropped'));
    return Promise.resolve(this.answer);
  }
  readonly spawns: string[][] = [];
  private readonly kills: ((last?: string) => void)[] = [];
  /** every spawned agent ends, its output too, after a last line if given */
  killAll(last?: string): void {
    for (const kill of this.kills) kill(last);
  }
  spawn(argv: readonly string[]): RemoteProcess {
    this.spawns.push([...argv]);
    const queue: string[] = [
      this.firstLine ??
        (argv.includes('--defer') ? '{"type":"ready"}' : '{"type":"locked","holder":{}}'),
    ];
    let wake: (() => void) | undefined;
    let exit: (code: number) => void = () => undefined;
    const exited = new Promise<number>((r) => (exit = r));
    let over = false;
    this.kills.push((last) => {
      if (last !== undefined) queue.push(last);
      over = true;
      wake?.();
      exit(last === undefined ? -1 : 1);
    });
    const lines: AsyncIterable<string> = {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const next = queue.shift();
          if (next !== undefined) yield next;
          else if (over) return;
          else await new Promise<void>((r) => (wake = r));
        }
      },
    };
    return {
      lines,
      exited,
      write: (text) => {
        this.written.push(text);
        if (text === 'release\n') queue.push(this.releaseAnswer);
        const call = text.startsWith('{')
          ? (JSON.parse(text) as { call?: { id: number } }).call
          : undefined;
        const refusal = call && this.refuse[(call as { op?: string }).op ?? ''];
        if (call)
          queue.push(
            JSON.stringify(
              refusal
                ? { type: 'reply', id: call.id, ok: false, error: refusal }
                : { type: 'reply', id: call.id, ok: true, data: { current: 'r2', previous: 'r1' } },
            ),
          );
        wake?.();
      },
      end: () => {
        if (this.exitOnEnd) exit(0);
      },
      kill: () => exit(-1),
    };
  }
  put(): Promise<void> {
    return Promise.resolve();
  }
  readonly uploads: { from: string; to: string }[] = [];
  upload(from: string, to: string): Promise<void> {
    this.uploads.push({ from, to });
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const paths = { agent: '/opt/handoff', hostConfig: '/etc/handoff/api.json' };

describe('AgentClient', () => {
  it('runs an operation as its own `deploy host` process when no lock is held', async () => {
    const t = new RecordingTransport();
    await new AgentClient(t, paths, new MemoryLog()).run('drain', {
      by: 'ci',
      leaseMs: 5000,
      release: 'r2',
    });
    expect(t.execs).toEqual([
      [
        '/opt/handoff/bin/deploy',
        'host',
        'drain',
        '--config',
        '/etc/handoff/api.json',
        '--by',
        'ci',
        '--lease-ms',
        '5000',
        '--release',
        'r2',
      ],
    ]);
  });

  it('runs operations inside the holding agent while it holds the lock', async () => {
    const t = new RecordingTransport();
    const client = new AgentClient(t, paths, new MemoryLog());
    const lock = await client.holdLock('rollout', 'release r2');
    expect(await client.run('switch', { release: 'r2' })).toEqual({
      current: 'r2',
      previous: 'r1',
    });
    expect(t.execs).toEqual([]);
    expect(JSON.parse(t.written[0] ?? '')).toEqual({
      call: { id: 1, op: 'switch', args: { release: 'r2' } },
    });
    await lock.release();
    await client.run('undrain', {});
    expect(t.execs).toHaveLength(1);
  });

  it('takes the lock inside a session started ahead, without a second process', async () => {
    const t = new RecordingTransport();
    const client = new AgentClient(t, paths, new MemoryLog());
    await client.openSession();
    await client.run('stop', { release: 'r2' });
    expect(t.execs).toHaveLength(1);
    const lock = await client.holdLock('rollout', 'release r2');
    await client.run('switch', { release: 'r2' });
    expect(t.spawns).toHaveLength(1);
    expect(t.written.map((w) => (JSON.parse(w) as { call: { op: string } }).call.op)).toEqual([
      'lock',
      'switch',
    ]);
    await lock.release();
  });

  it('asks the first operation on a host for this deploy’s agent, and no later one', async () => {
    const t = new RecordingTransport();
    const identity = { expected: 'a'.repeat(64), verified: false };
    const client = new AgentClient(t, paths, new MemoryLog(), identity);
    await client.run('undrain', {});
    await new AgentClient(t, paths, new MemoryLog(), identity).run('undrain', {});
    expect(t.execs[0]?.slice(-2)).toEqual(['--expect-agent', 'a'.repeat(64)]);
    expect(t.execs[1]).not.toContain('--expect-agent');
  });

  it('reports another agent as exit 3 with the fix, and asks again next time', async () => {
    const t = new RecordingTransport();
    const identity = { expected: 'a'.repeat(64), verified: false };
    const client = new AgentClient(t, paths, new MemoryLog(), identity);
    t.answer = {
      code: 3,
      stdout: `${JSON.stringify({
        type: 'result',
        ok: false,
        error: {
          code: 'agent-version',
          message: "agent 0.0.9 (0123456789ab) differs from this deploy's",
          exit: 3,
        },
      })}\n`,
      stderr: '',
    };
    const error = await client
      .run('drain', { by: 'ci', leaseMs: 5000, release: 'r2' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ code: 'agent-version', exitCode: 3 });
    expect((error as Error).message).toBe(
      "web-1: agent 0.0.9 (0123456789ab) differs from this deploy's; run 'deploy setup --hosts web-1'",
    );
    expect(identity.verified).toBe(false);
    await client.run('undrain', {}).catch(() => undefined);
    expect(t.execs[1]).toContain('--expect-agent');
  });

  it('does not take a refusal that came before the agent compared as its word', async () => {
    const t = new RecordingTransport();
    const identity = { expected: 'a'.repeat(64), verified: false };
    const client = new AgentClient(t, paths, new MemoryLog(), identity);
    t.answer = {
      code: 2,
      stdout: '{"type":"result","ok":false,"error":{"code":"bad-config","message":"x","exit":2}}\n',
      stderr: '',
    };
    await expect(client.run('undrain', {})).rejects.toMatchObject({ code: 'bad-config' });
    expect(identity.verified).toBe(false);
  });

  it('reports an agent older than --expect-agent the same way', async () => {
    const t = new RecordingTransport();
    const client = new AgentClient(t, paths, new MemoryLog(), { expected: 'a', verified: false });
    t.answer = { code: 2, stdout: '', stderr: "error: unknown option '--expect-agent'\n" };
    const error = await client.run('status', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'agent-version', exitCode: 3 });
    expect((error as Error).message).toMatch(/older than this deploy.*deploy setup --hosts web-1/);
  });

  it('checks the agent when a session starts, and asks status and publish through it', async () => {
    const t = new RecordingTransport();
    const identity = { expected: 'a'.repeat(64), verified: false };
    const client = new AgentClient(t, paths, new MemoryLog(), identity);
    await client.openSession();
    expect(t.spawns[0]?.slice(-2)).toEqual(['--expect-agent', 'a'.repeat(64)]);
    expect(identity.verified).toBe(true);
    await client.run('status', {});
    await client.publish('r2');
    expect(t.execs).toEqual([]);
    expect(t.written.map((w) => JSON.parse(w) as unknown)).toEqual([
      { call: { id: 1, op: 'status', args: {} } },
      { call: { id: 2, op: 'publish', args: { release: 'r2' } } },
    ]);
  });

  it('refuses a session whose agent is another', async () => {
    const t = new RecordingTransport();
    t.firstLine = JSON.stringify({
      type: 'result',
      ok: false,
      error: { code: 'agent-version', message: 'agent 0.0.9 (0123456789ab) differs', exit: 3 },
    });
    const client = new AgentClient(t, paths, new MemoryLog(), { expected: 'a', verified: false });
    await expect(client.openSession()).rejects.toMatchObject({
      code: 'agent-version',
      exitCode: 3,
    });
  });

  it('releases the lock with an unlock call and keeps the session for what comes next', async () => {
    const t = new RecordingTransport();
    const client = new AgentClient(t, paths, new MemoryLog());
    const lock = await client.holdLock('rollout', 'release r2');
    await lock.release();
    expect(t.written.at(-1)).toContain('"op":"unlock"');
    expect(t.written).not.toContain('release\n');
    // a status read after the host's turn (another host's capacity check): a line, no process
    await client.run('status', {});
    expect(t.spawns).toHaveLength(1);
    expect(t.execs).toHaveLength(0);
    expect(t.written.at(-1)).toContain('"op":"status"');
    // what needs the lock no longer goes down the session: it holds none now
    await client.run('stop', { release: 'r2' });
    expect(t.execs.at(-1)?.[2]).toBe('stop');
  });

  it('fails the release when the holder refuses the unlock', async () => {
    const t = new RecordingTransport();
    t.refuse.unlock = { code: 'failed', message: 'could not unlink the lock file', exit: 1 };
    const client = new AgentClient(t, paths, new MemoryLog());
    const lock = await client.holdLock('rollout', 'release r2');
    await expect(lock.release()).rejects.toThrow(/could not unlink the lock file/);
  });

  it('ends the holder with the lock where sessions are off, released once it answers, before its process exits', async () => {
    const t = new RecordingTransport();
    t.exitOnEnd = false;
    const client = new AgentClient(t, paths, new MemoryLog(), undefined, { sessions: false });
    const lock = await client.holdLock('rollout', 'release r2');
    await lock.release();
    expect(t.written.at(-1)).toBe('release\n');
    // that holder is ending: what comes next is a process of its own, not down its closed stdin
    await client.openSession();
    await client.publish('r3');
    expect(t.spawns).toHaveLength(1);
    expect(t.execs.at(-1)?.[2]).toBe('publish');
  });

  it('fails the release when the holder ends with an error', async () => {
    const t = new RecordingTransport();
    t.exitOnEnd = false;
    const client = new AgentClient(t, paths, new MemoryLog(), undefined, { sessions: false });
    const lock = await client.holdLock('rollout', 'release r2');
    t.releaseAnswer =
      '{"type":"result","ok":false,"error":{"code":"OperationError","message":"lost the host lock","exit":1}}';
    await expect(lock.release()).rejects.toThrow(
      /lock holder ended with an error: lost the host lock/,
    );
  });

  it('takes each operation’s channel, stdin and bound from the table', async () => {
    const t = new RecordingTransport();
    const client = new AgentClient(t, paths, new MemoryLog());
    await client.publish('r2', [releaseFile('compose.yml', 'x')]);
    await client.run('verify', { successes: 2, timeoutMs: 10_000, allowDraining: false });
    await client.run('prune', { keep: 3 });
    await client.run('stop', { release: 'r2' });
    // a process of its own: the document on stdin, never in argv
    expect(t.execs[0]?.slice(2)).toEqual([
      'publish',
      '--config',
      paths.hostConfig,
      '--release',
      'r2',
    ]);
    expect(t.options[0]).toEqual({
      stdin: encodePublish([releaseFile('compose.yml', 'x')]),
      timeoutMs: 15 * 60_000,
    });
    expect(t.options[1]).toEqual({ timeoutMs: 40_000 });
    expect(t.execs[2]?.slice(-2)).toEqual(['--keep', '3']);
    expect(t.options[2]).toEqual({ timeoutMs: 5 * 60_000 });
    // no bound of its own: a process has none
    expect(t.options[3]).toEqual({});
    // with a session open, a `session` operation runs in it and a `locked` one does not
    await client.openSession();
    await client.publish('r3', [releaseFile('compose.yml', 'y')]);
    await client.run('undrain', {});
    expect(t.execs).toHaveLength(5);
    expect(t.execs[4]).toContain('undrain');
    expect(JSON.parse(t.written[0] ?? '')).toMatchObject({
      call: {
        op: 'publish',
        args: { release: 'r3', files: encodePublish([releaseFile('compose.yml', 'y')]) },
      },
    });
  });

  it('never runs a `locked` operation as its own process once the holder died', async () => {
    const t = new RecordingTransport();
    t.exitOnEnd = false;
    const client = new AgentClient(t, paths, new MemoryLog());
    const lock = await client.holdLock('rollout', 'release r2');
    const spawned = t.spawns.length;
    expect(spawned).toBe(1);
    t.killAll();
    await lock.lost;
    await expect(client.run('undrain', {})).rejects.toThrow(
      /dropped; not running undrain without the lock/,
    );
    await expect(client.run('stop', { release: 'r2' })).rejects.toThrow(
      /not running stop without the lock/,
    );
    expect(t.execs).toEqual([]);
    // what changes nothing that runs still answers, as its own process
    await client.run('status', {});
    expect(t.execs).toHaveLength(1);
  });

  it('says a holder that lost its lock to staleness left the connection up, in its own words', async () => {
    const t = new RecordingTransport();
    const client = new AgentClient(t, paths, new MemoryLog());
    const lock = await client.holdLock('rollout', 'release r2');
    t.killAll(
      '{"type":"result","ok":false,"error":{"code":"OperationError","message":"lost the host lock /l (Unable to update lock within the stale threshold)","exit":1}}',
    );
    expect(await (await lock.lost).why()).toEqual({
      connected: true,
      said: { error: 'lost the host lock /l (Unable to update lock within the stale threshold)' },
    });
    // no probe was needed: its word came down the connection
    expect(t.execs).toEqual([]);
  });

  it('says why a holder ended its session without an error (silence)', async () => {
    const t = new RecordingTransport();
    const client = new AgentClient(t, paths, new MemoryLog());
    const lock = await client.holdLock('rollout', 'release r2');
    t.killAll('{"type":"result","ok":true,"data":{"released":true,"reason":"silence"}}');
    expect(await (await lock.lost).why()).toEqual({
      connected: true,
      said: { reason: 'silence' },
    });
  });

  it('asks the transport whether the connection answers when a holder ends without a word', async () => {
    const t = new RecordingTransport();
    const client = new AgentClient(t, paths, new MemoryLog());
    const killed = await client.holdLock('rollout', 'release r2');
    t.killAll();
    expect(await (await killed.lost).why()).toEqual({ connected: true });
    expect(t.execs).toEqual([['true']]);
    // the lock is taken again through a new holder over the same transport
    const again = await client.holdLock('rollout', 'release r2');
    expect(t.spawns).toHaveLength(2);
    t.dropped = true;
    t.killAll();
    expect(await (await again.lost).why()).toEqual({ connected: false });
  });

  it('turns call arguments into flags', () => {
    expect(toFlags({ leaseMs: 5, allowDraining: true, force: false, release: undefined })).toEqual([
      '--lease-ms',
      '5',
      '--allow-draining',
    ]);
  });
});

describe('the session heartbeat', () => {
  const beats = (t: RecordingTransport) =>
    t.written.filter((w) => w.includes('"op":"heartbeat"')).length;

  it('beats every HEARTBEAT.everyMs no call went in while the session is open, the lock held or not, and none once closed', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const t = new RecordingTransport();
      const client = new AgentClient(t, paths, new MemoryLog());
      await client.openSession();
      const lock = await client.holdLock('rollout', 'release r2');
      expect(beats(t)).toBe(0);
      // the lock's call spoke for the first beat
      vi.advanceTimersByTime(HEARTBEAT.everyMs * 3);
      expect(beats(t)).toBe(2);
      await lock.release();
      // the session outlives the lock, and the holder must go on hearing from us (the unlock spoke once)
      vi.advanceTimersByTime(HEARTBEAT.everyMs * 2);
      expect(beats(t)).toBe(3);
      client.close();
      vi.advanceTimersByTime(HEARTBEAT.everyMs * 3);
      expect(beats(t)).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops beating when a session that never took the lock is closed', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const t = new RecordingTransport();
      const client = new AgentClient(t, paths, new MemoryLog());
      await client.openSession();
      vi.advanceTimersByTime(HEARTBEAT.everyMs * 1.5);
      expect(beats(t)).toBe(1);
      client.close();
      vi.advanceTimersByTime(HEARTBEAT.everyMs * 3);
      expect(beats(t)).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
