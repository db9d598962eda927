import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OperationError } from '../../../src/errors.js';
import { writeFileAtomic } from '../../../src/host/atomic.js';
import { tempDir } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('writeFileAtomic', () => {
  it('writes the content and leaves no temp file behind', async () => {
    await writeFileAtomic(path.join(dir, 'a.json'), '{"a":1}');
    expect(await readFile(path.join(dir, 'a.json'), 'utf8')).toBe('{"a":1}');
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('replaces an existing file whole', async () => {
    const file = path.join(dir, 'a.json');
    await writeFile(file, 'x'.repeat(10_000));
    await writeFileAtomic(file, 'short');
    expect(await readFile(file, 'utf8')).toBe('short');
  });

  it('creates missing directories', async () => {
    const file = path.join(dir, 'run', 'handoff', 'api', 'watchdog.json');
    await writeFileAtomic(file, '{}');
    expect(await readFile(file, 'utf8')).toBe('{}');
  });

  it('applies the mode it is given regardless of the umask', async () => {
    const file = path.join(dir, 'secret');
    await writeFileAtomic(file, 'x', { mode: 0o600 });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('fails with an OperationError naming the file and cleans up its temp file', async () => {
    await writeFile(path.join(dir, 'blocker'), 'a file where a directory should be');
    const file = path.join(dir, 'blocker', 'x.json');
    await expect(writeFileAtomic(file, '{}')).rejects.toThrow(OperationError);
    await expect(writeFileAtomic(file, '{}')).rejects.toThrow(/cannot write .*blocker\/x\.json/);
    expect(await readdir(dir)).toEqual(['blocker']);
  });
});
