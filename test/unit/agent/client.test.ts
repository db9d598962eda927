import { describe, expect, it } from 'vitest';
import { AgentClient, toFlags } from '../../../src/host/agent/client.js';
import { MemoryLog } from '../../../src/log.js';
import type { ExecResult, RemoteProcess, Transport } from '../../../src/remote/transport.js';

/** A transport that records every command and answers like an agent would. */
class RecordingTransport implements Transport {
  readonly host = 'web-1';
  readonly execs: string[][] = [];
  readonly written: string[] = [];
  exec(argv: readonly string[]): Promise<ExecResult> {
    this.execs.push([...argv]);
    return Promise.resolve({
      code: 0,
      stdout: '{"type":"result","ok":true,"data":{"done":true}}\n',
      stderr: '',
    });
  }
  readonly spawns: string[][] = [];
  spawn(argv: readonly string[]): RemoteProcess {
    this.spawns.push([...argv]);
    const queue: string[] = [
      argv.includes('--defer') ? '{"type":"ready"}' : '{"type":"locked","holder":{}}',
    ];
    let wake: (() => void) | undefined;
    let exit: (code: number) => void = () => undefined;
    const exited = new Promise<number>((r) => (exit = r));
    const lines: AsyncIterable<string> = {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const next = queue.shift();
          if (next !== undefined) yield next;
          else await new Promise<void>((r) => (wake = r));
        }
      },
    };
    return {
      lines,
      exited,
      write: (text) => {
        this.written.push(text);
        const call = text.startsWith('{')
          ? (JSON.parse(text) as { call?: { id: number } }).call
          : undefined;
        if (call)
          queue.push(
            JSON.stringify({
              type: 'reply',
              id: call.id,
              ok: true,
              data: { current: 'r2', previous: 'r1' },
            }),
          );
        wake?.();
      },
      end: () => exit(0),
      kill: () => exit(-1),
    };
  }
  put(): Promise<void> {
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
    await new AgentClient(t, paths, new MemoryLog()).drain('ci', 5000, 'r2');
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
    expect(await client.switchTo('r2')).toEqual({ current: 'r2', previous: 'r1' });
    expect(t.execs).toEqual([]);
    expect(JSON.parse(t.written[0] ?? '')).toEqual({
      call: { id: 1, op: 'switch', args: { release: 'r2' } },
    });
    await lock.release();
    await client.undrain();
    expect(t.execs).toHaveLength(1);
  });

  it('takes the lock inside a session started ahead, without a second process', async () => {
    const t = new RecordingTransport();
    const client = new AgentClient(t, paths, new MemoryLog());
    await client.openSession();
    await client.stop();
    expect(t.execs).toHaveLength(1);
    const lock = await client.holdLock('rollout', 'release r2');
    await client.switchTo('r2');
    expect(t.spawns).toHaveLength(1);
    expect(t.written.map((w) => (JSON.parse(w) as { call: { op: string } }).call.op)).toEqual([
      'lock',
      'switch',
    ]);
    await lock.release();
  });

  it('turns call arguments into flags', () => {
    expect(toFlags({ leaseMs: 5, allowDraining: true, force: false, release: undefined })).toEqual([
      '--lease-ms',
      '5',
      '--allow-draining',
    ]);
  });
});
