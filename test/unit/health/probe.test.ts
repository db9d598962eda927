import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDuration, runProbe } from '../../../src/health/probe.js';
import { tempDir } from './support.js';

describe('the standalone probe', () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, remove } = await tempDir());
    await mkdir(path.join(dir, 'marks'));
  });
  afterEach(() => remove());
  const marks = (...p: string[]) => path.join(dir, 'marks', ...p);
  async function mark(name: string, ageMs = 0): Promise<void> {
    await writeFile(marks(name), '');
    const when = new Date(Date.now() - ageMs);
    await utimes(marks(name), when, when);
  }

  it('exits 0 with one line when every expected slot is fresh', async () => {
    await writeFile(marks('expected'), '2\n');
    await mark('worker-1');
    await mark('worker-2');
    expect(runProbe(['--dir', marks(), '--max-age', '30s'], Date.now())).toEqual({
      code: 0,
      line: 'ok: 2 of 2 slots fresh',
    });
  });

  it('exits 1 naming the missing slots when expected is not met', async () => {
    await writeFile(marks('expected'), '3\n');
    await mark('worker-1');
    expect(runProbe(['--dir', marks(), '--max-age', '30s'], Date.now())).toEqual({
      code: 1,
      line: 'FAIL: 1 of 3 slots fresh; missing worker-2, worker-3',
    });
  });

  it('exits 1 naming a stale slot, and takes --expected as a minimum', async () => {
    await mark('worker-1', 45_000);
    const { code, line } = runProbe(
      ['--dir', marks(), '--max-age', '30s', '--expected', '2'],
      Date.now(),
    );
    expect(code).toBe(1);
    expect(line).toBe('FAIL: 0 of 2 slots fresh; missing worker-2; stale worker-1 (45s)');
  });

  it('counts a missing slot as starting within the grace after the workers wrote expected', async () => {
    await writeFile(marks('expected'), '2\n');
    await mark('worker-1');
    const argv = ['--dir', marks(), '--max-age', '30s', '--grace', '10s'];
    expect(runProbe(argv, Date.now()).code).toBe(0);
    expect(runProbe(argv, Date.now() + 11_000).code).toBe(1);
  });

  it('counts only worker-<n> files: a stray fresh file does not make 2 of 2', async () => {
    await writeFile(marks('expected'), '2\n');
    await mark('worker-1');
    await mark('junk');
    expect(runProbe(['--dir', marks(), '--max-age', '30s'], Date.now())).toEqual({
      code: 1,
      line: 'FAIL: 1 of 2 slots fresh; missing worker-2',
    });
  });

  it('fails an empty marks directory with one line saying nothing wrote expected', () => {
    expect(runProbe(['--dir', marks(), '--max-age', '30s'], Date.now())).toEqual({
      code: 1,
      line: `FAIL: nothing wrote ${marks('expected')}: the workers have not started, or they write their marks elsewhere`,
    });
  });

  it('exits 2 with its usage on a bad command line', () => {
    expect(runProbe(['--dir', marks()], Date.now()).code).toBe(2);
    expect(runProbe(['--max-age', 'soon', '--dir', marks()], Date.now()).code).toBe(2);
    expect(runProbe(['--bogus'], Date.now()).line).toContain('usage: node probe.cjs');
  });

  it('reads durations as ms, s, m and h, and a bare number as seconds', () => {
    expect([
      parseDuration('500ms'),
      parseDuration('30s'),
      parseDuration('2m'),
      parseDuration('1h'),
    ]).toEqual([500, 30_000, 120_000, 3_600_000]);
    expect(parseDuration('5')).toBe(5_000);
    expect(parseDuration('5x')).toBeUndefined();
  });
});
