import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../../src/agent-client/client.js';
import { splitCommand } from '../../../src/cli/on-hosts/exec-argv.js';
import { hostPrinter, onEveryHost } from '../../../src/cli/on-hosts/host-lines.js';
import type { Connections } from '../../../src/cli/connections.js';
import { AgentError, ExitCode } from '../../../src/errors.js';
import type { Output } from '../../../src/cli/output.js';
import { composeLogs } from '../../../src/host/runtime/compose-argv.js';
import type { LogEvent } from '../../../src/log.js';
import { MemoryLog } from '../../../src/log.js';
import type { RemoteProcess, Transport } from '../../../src/remote/transport.js';
import { testConfig } from '../../support/config.js';

/** An agent process that prints its events at once and its result when its stdin ends. */
function streamingTransport(events: readonly string[], result: string) {
  const spawned: string[][] = [];
  let ended = false;
  const transport: Transport = {
    host: 'web-1',
    exec: () => Promise.reject(new Error('not used')),
    put: () => Promise.reject(new Error('not used')),
    upload: () => Promise.reject(new Error('not used')),
    close: () => Promise.resolve(),
    spawn(argv): RemoteProcess {
      spawned.push([...argv]);
      let end: () => void = () => undefined;
      const stdinEnded = new Promise<void>((r) => (end = r));
      return {
        lines: (async function* () {
          for (const e of events) yield e;
          await stdinEnded;
          yield result;
        })(),
        write: () => undefined,
        end: () => ((ended = true), end()),
        exited: stdinEnded.then(() => 0),
        kill: () => end(),
      };
    },
  };
  return { transport, spawned, ended: () => ended };
}

const event = (message: string) =>
  JSON.stringify({ type: 'event', level: 'info', event: 'output', message });

describe("the client's streamed operation", () => {
  it('hands each output line over as it comes, and reads the result once Ctrl-C closed stdin', async () => {
    const t = streamingTransport(
      [event('one'), event('two')],
      '{"type":"result","ok":true,"data":{"release":"r1","code":0}}',
    );
    const client = new AgentClient(
      t.transport,
      { agent: '/opt/handoff', hostConfig: '/etc/handoff/api.json' },
      new MemoryLog(),
    );
    const seen: string[] = [];
    const ctrlC = new AbortController();
    const result = client.stream(
      'logs',
      { follow: true, tail: 5 },
      (e) => {
        seen.push(e.message);
        if (seen.length === 2) ctrlC.abort();
      },
      ctrlC.signal,
    );
    await expect(result).resolves.toEqual({ release: 'r1', code: 0 });
    expect(seen).toEqual(['one', 'two']);
    expect(t.ended()).toBe(true);
    expect(t.spawned[0]).toEqual([
      '/opt/handoff/bin/deploy',
      'host',
      'logs',
      '--config',
      '/etc/handoff/api.json',
      '--follow',
      '--tail',
      '5',
    ]);
  });

  it("sends exec's command as one JSON argument: the transport quotes it, no shell string is built here", async () => {
    const t = streamingTransport(
      [],
      '{"type":"result","ok":true,"data":{"release":"r1","code":0}}',
    );
    const client = new AgentClient(
      t.transport,
      { agent: '/opt/handoff', hostConfig: '/etc/handoff/api.json' },
      new MemoryLog(),
    );
    const ctrl = new AbortController();
    ctrl.abort();
    await client.stream(
      'exec',
      { argv: JSON.stringify(['ls', "it's; x"]), who: 'a@b' },
      () => undefined,
      ctrl.signal,
    );
    expect(t.spawned[0]?.slice(5)).toEqual(['--argv', '["ls","it\'s; x"]', '--who', 'a@b']);
  });
});

describe('deploy exec words', () => {
  it('takes the hosts before -- and the command after it', () => {
    const raw = ['node', 'deploy', 'exec', 'web-1', 'web-2', '--', 'ls', '-la'];
    expect(splitCommand(['web-1', 'web-2', 'ls', '-la'], raw)).toEqual({
      hosts: ['web-1', 'web-2'],
      command: ['ls', '-la'],
    });
  });

  it('refuses a command without --, or -- without a command, in one line', () => {
    expect(() => splitCommand(['web-1', 'ls'], ['deploy', 'exec', 'web-1', 'ls'])).toThrow(
      "put the command after '--': deploy exec web-1 web-2 -- CMD ARGS…",
    );
    expect(() => splitCommand(['web-1'], ['deploy', 'exec', 'web-1', '--'])).toThrow(
      /give the hosts before '--'/,
    );
  });
});

describe('output from several hosts', () => {
  it('prefixes each line with its host, names padded to one width; with --json an output event', () => {
    const texts: string[] = [];
    const events: LogEvent[] = [];
    const out = (json: boolean): Output => ({
      json,
      emit: (e) => void events.push(e),
      text: (t) => void texts.push(t),
      result: () => undefined,
      raw: () => undefined,
    });
    const hosts = testConfig({}, 2).hosts.map((h, i) => (i ? { ...h, name: 'web-10' } : h));
    hostPrinter(out(false), hosts)('web-1', 'hello');
    expect(texts).toEqual(['web-1  | hello']);
    hostPrinter(out(true), hosts)('web-10', 'hi');
    expect(events).toEqual([{ level: 'info', event: 'output', message: 'hi', host: 'web-10' }]);
  });
});

describe("compose's logs", () => {
  it('are asked without colour, from the last lines, following and since when asked', () => {
    const t = { command: ['docker', 'compose'], root: '/srv/api', release: 'r1', project: 'api' };
    expect(composeLogs(t, { follow: true, since: '10m', tail: 50 }).slice(-7)).toEqual([
      'logs',
      '--no-color',
      '--tail',
      '50',
      '--follow',
      '--since',
      '10m',
    ]);
  });
});

describe('a command on several hosts, refused', () => {
  const hosts = testConfig({}, 3).hosts;
  const connections = { agent: () => Promise.resolve({}) } as unknown as Connections;
  const refusal = (exit: number) => (_agent: unknown, host: { name: string }) =>
    Promise.reject(new AgentError(host.name, 'refused', 'no', exit));
  const ran = () => Promise.resolve({ release: 'r1', code: 3 });

  it('exits as every host refused it when they all did alike: 2 for bad input, 3 for a held lock', async () => {
    await expect(onEveryHost(hosts, connections, refusal(2))).resolves.toMatchObject({
      exitCode: ExitCode.usage,
    });
    await expect(onEveryHost(hosts, connections, refusal(3))).resolves.toMatchObject({
      exitCode: ExitCode.blocked,
    });
  });

  it('exits 1 once the command ran somewhere, or the hosts failed in different ways', async () => {
    let n = 0;
    const firstRuns = (a: unknown, h: { name: string }) => (n++ === 0 ? ran() : refusal(3)(a, h));
    const r = await onEveryHost(hosts, connections, firstRuns);
    expect(r.exitCode).toBe(ExitCode.failed);
    expect(r.runs.map((x) => ('error' in x ? x.error : x.code))).toEqual([3, 'no', 'no']);
    let m = 0;
    const mixed = (a: unknown, h: { name: string }) => refusal(m++ === 0 ? 2 : 3)(a, h);
    await expect(onEveryHost(hosts, connections, mixed)).resolves.toMatchObject({
      exitCode: ExitCode.failed,
    });
  });
});
