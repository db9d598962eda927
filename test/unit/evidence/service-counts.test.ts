import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResponseCountsFile } from '../../../src/health/index.js';
import {
  parseCountsFile,
  readServiceCounts,
  serviceWindow,
} from '../../../src/evidence/service-counts.js';
import type { ServiceReading } from '../../../src/protocol/results.js';
import { tempDir } from '../health/support.js';

const file = (requests: number, c5xx: number, timeMs = requests * 10): ResponseCountsFile => ({
  v: 1,
  pid: 1,
  started: 1000,
  at: 2000,
  requests,
  classes: [0, requests - c5xx, 0, 0, c5xx],
  time_ms: timeMs,
});
const reading = (processes: Record<string, ResponseCountsFile>): ServiceReading => ({ processes });

describe('serviceWindow', () => {
  it("compares each process with itself and adds a new process's counts whole", () => {
    const start = reading({ 'old-1': file(100, 1) });
    const end = reading({ 'old-1': file(150, 3), 'new-2': file(40, 0) });
    expect(serviceWindow(start, end, 'web-1')).toEqual({
      kind: 'counted',
      counts: { requests: 90, failed: 2, kinds: { http_5xx: 2 }, latencyMs: 10 },
    });
  });

  it('says counts that went back, and keeps what was counted since', () => {
    const w = serviceWindow(reading({ a: file(100, 5) }), reading({ a: file(10, 0) }), 'web-1');
    expect(w).toMatchObject({
      kind: 'reset',
      reason: "web-1: a service's counts went back",
      since: { requests: 10 },
    });
  });

  it('says a process whose counts were removed during the window', () => {
    const w = serviceWindow(
      reading({ a: file(1, 0), b: file(1, 0) }),
      reading({ a: file(3, 0) }),
      'web-2',
    );
    expect(w).toMatchObject({
      kind: 'reset',
      reason: 'web-2: the counts of 1 service process(es) were removed during the window',
      since: { requests: 2 },
    });
  });
});

describe('readServiceCounts', () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => ({ dir, remove } = await tempDir()));
  afterEach(() => remove());

  it('reads nothing, not an error, before any service counted', async () => {
    expect(await readServiceCounts(dir)).toEqual({ processes: {} });
  });

  it('skips temp files, other names and files that are not counts', async () => {
    await mkdir(path.join(dir, 'responses'));
    await writeFile(path.join(dir, 'responses', '7-1.json'), JSON.stringify(file(5, 1)));
    await writeFile(path.join(dir, 'responses', '.7-1.json.x.tmp'), JSON.stringify(file(9, 9)));
    await writeFile(path.join(dir, 'responses', '8-1.json'), '{"v":1,"requests":"many"}');
    await writeFile(path.join(dir, 'responses', 'notes.txt'), 'x');
    expect(Object.keys((await readServiceCounts(dir)).processes)).toEqual(['7-1']);
  });
});

describe('parseCountsFile', () => {
  it.each([
    ['not json', '{'],
    ['another version', JSON.stringify({ ...file(1, 0), v: 2 })],
    ['a negative count', JSON.stringify({ ...file(1, 0), requests: -1 })],
    ['four classes', JSON.stringify({ ...file(1, 0), classes: [0, 1, 0, 0] })],
    ['a fractional class', JSON.stringify({ ...file(1, 0), classes: [0, 0.5, 0, 0, 0] })],
    ['no start', JSON.stringify({ ...file(1, 0), started: undefined })],
    ['no time', JSON.stringify({ ...file(1, 0), time_ms: undefined })],
  ])('skips %s', (_what, text) => {
    expect(parseCountsFile(text)).toBeUndefined();
  });
});

describe('serviceWindow with counts no service could have written', () => {
  it('more failures than requests: unread, never judged', () => {
    const bad = { ...file(10, 0), classes: [0, 0, 0, 0, 1_000_000_000] } as ResponseCountsFile;
    expect(serviceWindow(reading({}), reading({ a: bad }), 'web-1', 60_000)).toEqual({
      kind: 'unread',
      reason:
        "web-1: the services' counts are implausible (1000000000 failed of 10 requests); not judged",
    });
  });

  it('more requests than a host serves in the window (a million a second): unread', () => {
    const start = reading({ a: file(100, 1) });
    expect(serviceWindow(start, reading({ a: file(60_000_100, 1) }), 'web-1', 60_000)).toEqual({
      kind: 'counted',
      counts: expect.objectContaining({ requests: 60_000_000 }) as unknown,
    });
    expect(serviceWindow(start, reading({ a: file(60_000_101, 1) }), 'web-1', 60_000)).toEqual({
      kind: 'unread',
      reason:
        "web-1: the services' counts are implausible (60000001 requests in 60s, more than 1000000 a second); not judged",
    });
  });
});
