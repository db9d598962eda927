import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { StateStore } from '../../../src/host/state-store.js';
import { exited, spawnFixture, tempDir } from './helpers.js';

const counter = z.object({ n: z.number().int() });

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('StateStore', () => {
  it('reads back what it wrote, through the validator', async () => {
    const store = new StateStore(dir);
    await store.write('watchdog.json', { n: 3 });
    expect(await store.read('watchdog.json', counter)).toEqual({ value: { n: 3 } });
  });

  it('creates a missing state directory on the first write', async () => {
    const store = new StateStore(path.join(dir, 'run', 'handoff', 'api'));
    await store.write('watchdog.json', { n: 1 });
    expect(JSON.parse(await readFile(store.path('watchdog.json'), 'utf8'))).toEqual({ n: 1 });
  });

  it('reads a missing document as undefined without a problem', async () => {
    expect(await new StateStore(dir).read('nothing.json', counter)).toEqual({ value: undefined });
  });

  it('reads corrupt JSON as undefined with a problem that does not echo the content', async () => {
    await writeFile(path.join(dir, 'watchdog.json'), '{"n": 1, "token": "s3cret"');
    const read = await new StateStore(dir).read('watchdog.json', counter);
    expect(read.value).toBeUndefined();
    expect(read.problem).toMatch(/watchdog\.json is not valid JSON/);
    expect(read.problem).not.toContain('s3cret');
  });

  it('reads a document of the wrong shape as undefined with a problem naming the field', async () => {
    await writeFile(path.join(dir, 'watchdog.json'), '{"n": "three"}');
    const read = await new StateStore(dir).read('watchdog.json', counter);
    expect(read.value).toBeUndefined();
    expect(read.problem).toMatch(/unexpected shape \(n: /);
  });

  it('says whether there was something to remove', async () => {
    const store = new StateStore(dir);
    await store.write('a.json', { n: 1 });
    expect(await store.remove('a.json')).toBe(true);
    expect(await store.remove('a.json')).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes absolute names as they are', async () => {
    await mkdir(path.join(dir, 'elsewhere'));
    const store = new StateStore(path.join(dir, 'state'));
    expect(store.path(path.join(dir, 'elsewhere', 'x.json'))).toBe(
      path.join(dir, 'elsewhere', 'x.json'),
    );
  });

  it('never shows a reader half a document while another process rewrites it', async () => {
    const store = new StateStore(dir);
    await store.write('doc.json', { n: 0, pad: '' });
    const doc = z.object({ n: z.number(), pad: z.string() });
    const writer = spawnFixture('state-writer.ts', [dir, 'doc.json', '400']);
    const done = exited(writer);
    let finished = false;
    void done.then(() => (finished = true));
    const seen = new Set<number>();
    const problems: string[] = [];
    let reads = 0;
    while (!finished) {
      const read = await store.read('doc.json', doc);
      reads += 1;
      if (read.problem) problems.push(read.problem);
      if (read.value) seen.add(read.value.n);
    }
    expect(await done).toBe(0);
    expect(problems).toEqual([]);
    expect(reads).toBeGreaterThan(100);
    // the reader really raced the writer: it saw many different versions
    expect(seen.size).toBeGreaterThan(20);
    expect((await store.read('doc.json', doc)).value?.n).toBe(400);
  });
});
