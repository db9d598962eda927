import { chmod, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OperationError, UsageError } from '../../../src/errors.js';
import { CommandCountSource, parseCommandCounts } from '../../../src/evidence/command-source.js';
import type { HaproxyCounters } from '../../../src/balancer/haproxy/receipt/counters.js';
import { HaproxyCountSource } from '../../../src/balancer/haproxy/receipt/source.js';
import { BACKEND_OWN, totalOf } from '../../../src/evidence/kit/total.js';
import { readOrUnread, type CountWindow } from '../../../src/evidence/kit/source.js';
import { systemClock } from '../../../src/clock.js';
import { FakeClock } from '../../support/fake-clock.js';
import { scratchDir } from '../../support/scratch.js';

const snapshot = (
  epoch: string,
  web1: [number, number],
  web2: [number, number],
  own: [number, number],
): HaproxyCounters => ({
  epoch,
  servers: new Map([
    ['web-1', { epoch, requests: web1[0], kinds: { http_5xx: web1[1] }, retried: 0 }],
    ['web-2', { epoch, requests: web2[0], kinds: { http_5xx: web2[1] }, retried: 0 }],
  ]),
  own: { epoch, requests: own[0], kinds: { no_server: own[1] } },
});

const targets = new Map([
  ['h1', 'web-1'],
  ['h2', 'web-2'],
]);

/** h1 +50 requests, 2 failed; h2 +80, none; the backend +132, 2 of its own */
function twoSnapshots(): HaproxyCountSource {
  const reads = [
    snapshot('1@1', [100, 0], [100, 1], [200, 0]),
    snapshot('1@1', [150, 2], [180, 1], [332, 2]),
  ];
  const source = new HaproxyCountSource(
    () => Promise.resolve(reads.shift() ?? snapshot('x', [0, 0], [0, 0], [0, 0])),
    targets,
    new FakeClock(),
    'be_api',
  );
  return source;
}

describe('HaproxyCountSource', () => {
  it("gives each host its server's window and the backend in all", async () => {
    const source = twoSnapshots();
    expect(source.label).toBe('haproxy be_api');
    const window = await source.open();
    const counts = await window.read();
    expect(counts.get('h1')).toMatchObject({
      kind: 'counted',
      counts: { requests: 50, failed: 2 },
    });
    expect(counts.get('h2')).toMatchObject({
      kind: 'counted',
      counts: { requests: 80, failed: 0 },
    });
    expect(counts.get(BACKEND_OWN)).toMatchObject({ counts: { requests: 132, failed: 2 } });
    // the backend's 132 requests, the servers' 2 failures and its own 2
    expect(totalOf(counts)).toMatchObject({
      kind: 'counted',
      counts: { requests: 132, failed: 4 },
    });
  });

  it('counts only the hosts a window was opened for, with the backend', async () => {
    const source = twoSnapshots();
    const counts = await (await source.open(['h2'])).read();
    expect([...counts.keys()]).toEqual(['h2', BACKEND_OWN]);
    expect(counts.get('h2')).toMatchObject({
      kind: 'counted',
      counts: { requests: 80, failed: 0 },
    });
    expect(counts.get(BACKEND_OWN)).toMatchObject({ counts: { requests: 132, failed: 2 } });
  });

  it("asks the reader for its hosts' servers only, at both ends of the window", async () => {
    const asked: (readonly string[])[] = [];
    const source = new HaproxyCountSource(
      (servers) => {
        asked.push(servers);
        return Promise.resolve(snapshot('1@1', [1, 0], [1, 0], [2, 0]));
      },
      targets,
      new FakeClock(),
      'be_api',
    );
    await (await source.open(['h2'])).read();
    await (await source.open()).read();
    expect(asked).toEqual([['web-2'], ['web-2'], ['web-1', 'web-2'], ['web-1', 'web-2']]);
  });

  it('says a host whose server haproxy no longer has, instead of a zero', async () => {
    const gone = snapshot('1@1', [1, 0], [1, 0], [2, 0]);
    const source = new HaproxyCountSource(
      () => Promise.resolve(gone),
      new Map([['h3', 'web-3']]),
      new FakeClock(),
      'be_api',
    );
    const counts = await (await source.open()).read();
    expect(counts.get('h3')).toEqual({
      kind: 'unread',
      reason: 'haproxy has no server web-3 for h3',
    });
    expect(totalOf(counts).kind).toBe('unread');
  });

  it('makes the total a lower bound when haproxy reloaded between the snapshots', async () => {
    const reads = [
      snapshot('1@1', [100, 0], [100, 0], [200, 0]),
      snapshot('2@9', [5, 1], [6, 0], [11, 0]),
    ];
    const source = new HaproxyCountSource(
      () => Promise.resolve(reads.shift() ?? reads[0]!),
      targets,
      new FakeClock(),
      'be',
    );
    const total = totalOf(await (await source.open()).read());
    expect(total).toMatchObject({ kind: 'reset', since: { requests: 11, failed: 1 } });
  });

  it('adds the servers alone when there is no backend row', () => {
    const windows = new Map([
      ['a', { kind: 'counted' as const, counts: { requests: 3, failed: 1 } }],
      ['b', { kind: 'counted' as const, counts: { requests: 4, failed: 0 } }],
    ]);
    expect(totalOf(windows)).toEqual({ kind: 'counted', counts: { requests: 7, failed: 1 } });
  });
});

describe('readOrUnread', () => {
  const failing = (error: Error): CountWindow => ({
    openedAt: 0,
    read: () => Promise.reject(error),
  });

  it("makes every host unread with the failure's first line", async () => {
    const counts = await readOrUnread(failing(new OperationError('socket gone\nmore')), [
      'h1',
      'h2',
    ]);
    expect([...counts]).toEqual([
      ['h1', { kind: 'unread', reason: 'socket gone' }],
      ['h2', { kind: 'unread', reason: 'socket gone' }],
    ]);
  });

  it('lets a bug rise', async () => {
    await expect(readOrUnread(failing(new TypeError('bug')), ['h1'])).rejects.toThrow(TypeError);
  });
});

describe('CommandCountSource', () => {
  let dir = '';
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function script(body: string): Promise<string> {
    dir = await scratchDir('handoff-count-cmd-');
    const file = path.join(dir, 'counts.sh');
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    await chmod(file, 0o755);
    return file;
  }

  const source = (file: string, timeoutMs = 5000) =>
    new CommandCountSource({
      file,
      cwd: path.dirname(file),
      timeoutMs,
      service: 'api',
      targets,
      clock: systemClock,
    });

  it('runs once per host with the window in its environment and reads its JSON', async () => {
    const file = await script(
      'case "$HANDOFF_HOST/$HANDOFF_TARGET/$HANDOFF_SERVICE" in h1/web-1/api) e=3;; *) e=0;; esac\n' +
        '[ -n "$HANDOFF_FROM" ] && [ -n "$HANDOFF_TO" ] || exit 9\n' +
        'echo "{\\"requests\\": 40, \\"errors\\": $e, \\"latency_ms\\": 12.5}"',
    );
    const counts = await (await source(file).open()).read();
    expect(counts.get('h1')).toEqual({
      kind: 'counted',
      counts: { requests: 40, failed: 3, latencyMs: 12.5 },
    });
    expect(counts.get('h2')).toEqual({
      kind: 'counted',
      counts: { requests: 40, failed: 0, latencyMs: 12.5 },
    });
  });

  it('is bad input, in one line naming the host, when the command fails', async () => {
    const file = await script('echo "no such metric" >&2; exit 4');
    const error = await (await source(file).open()).read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(`canary command ${file} for h1 exited 4: no such metric`);
  });

  it('kills a command that outlives its timeout, and says so', async () => {
    const file = await script('sleep 30');
    const started = Date.now();
    const error = await (await source(file, 300).open()).read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationError);
    expect((error as Error).message).toBe(
      `canary command ${file} for h1 did not finish within command_timeout 300ms`,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('parseCommandCounts', () => {
  const said = 'canary command ./c for h1';

  it.each([
    [
      'garbage',
      'canary command ./c for h1 printed "garbage", not JSON: print {"requests": N, "errors": N} (and optionally "latency_ms": N)',
    ],
    [
      '{"requests": 10}',
      'canary command ./c for h1 printed "{\\"requests\\": 10}": print {"requests": N, "errors": N} (and optionally "latency_ms": N), whole numbers',
    ],
    [
      '{"requests": 1.5, "errors": 0}',
      'canary command ./c for h1 printed "{\\"requests\\": 1.5, \\"errors\\": 0}": print {"requests": N, "errors": N} (and optionally "latency_ms": N), whole numbers',
    ],
    [
      'null',
      'canary command ./c for h1 printed "null": print {"requests": N, "errors": N} (and optionally "latency_ms": N), whole numbers',
    ],
    [
      '{"requests": 1, "errors": 2}',
      'canary command ./c for h1 printed more errors (2) than requests (1)',
    ],
    [
      '{"requests": 1, "errors": 0, "latency_ms": "fast"}',
      'canary command ./c for h1 printed latency_ms "fast": a number of ms, or leave it out',
    ],
    [
      '{"requests": 1, "errors": 0, "latency_ms": -1}',
      'canary command ./c for h1 printed latency_ms -1: a number of ms, or leave it out',
    ],
  ])('refuses %s in one line', (stdout, message) => {
    expect(() => parseCommandCounts(stdout, said)).toThrow(new UsageError(message));
  });
});
