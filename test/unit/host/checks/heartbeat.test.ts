import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/clock.js';
import { runCheck } from '../../../../src/host/checks/run.js';
import { tempDir } from '../helpers.js';

let state: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: state, cleanup } = await tempDir());
  await mkdir(path.join(state, 'marks'));
});
afterEach(() => cleanup());

const deps = () => ({ clock: systemClock, state, service: 'publish-worker' });
const check = (expected: number | undefined, dir = 'marks') => ({
  kind: 'heartbeat' as const,
  dir,
  maxAge: 30_000,
  ...(expected !== undefined && { expected }),
});
/** written by the workers `ageMs` ago: by default long enough that no slot is still starting */
async function writeExpected(count: number, ageMs = 60_000): Promise<void> {
  const file = path.join(state, 'marks', 'expected');
  await writeFile(file, `${count}\n`);
  const when = new Date(Date.now() - ageMs);
  await utimes(file, when, when);
}

async function mark(name: string, ageMs = 0, dir = path.join(state, 'marks')): Promise<void> {
  const file = path.join(dir, name);
  await writeFile(file, '');
  const when = new Date(Date.now() - ageMs);
  await utimes(file, when, when);
}

describe('the heartbeat check', () => {
  it('passes when enough marks are fresh', async () => {
    await mark('worker-1');
    await mark('worker-2', 10_000);
    expect(await runCheck(check(2), deps())).toMatchObject({
      ok: true,
      code: 'ok',
      detail: 'ok: 2 of 2 slots fresh, within 30000 ms',
    });
  });

  it('fails with stale-marks when a mark is older than max_age', async () => {
    await mark('worker-1');
    await mark('worker-2', 60_000);
    expect(await runCheck(check(2), deps())).toMatchObject({
      ok: false,
      code: 'stale-marks',
      detail: 'FAIL: 1 of 2 slots fresh; stale worker-2 (60s), within 30000 ms',
    });
  });

  it('fails with too-few-marks when fewer marks exist than expected', async () => {
    await mark('worker-1');
    expect(await runCheck(check(2), deps())).toMatchObject({ ok: false, code: 'too-few-marks' });
  });

  it('ignores dot files, the temp files of a mark being written', async () => {
    await mark('worker-1');
    await mark('.worker-2.tmp');
    expect(await runCheck(check(2), deps())).toMatchObject({ ok: false, code: 'too-few-marks' });
  });

  it('does not count the temp file of a mark being written as a mark', async () => {
    // the library wrote `<slot>.<pid>.<n>.tmp` beside the mark, and a worker killed
    // between write and rename leaves it there: one live slot must not pass "2 of 2"
    await mark('worker-1');
    await mark('worker-2.4242.7.tmp');
    expect(await runCheck(check(2), deps())).toMatchObject({ ok: false, code: 'too-few-marks' });
  });

  it('expects as many slots as the workers wrote in marks/expected, the config being a minimum', async () => {
    await mark('worker-1');
    await mark('worker-2');
    await writeFile(path.join(state, 'marks', 'expected'), '3\n');
    const old = new Date(Date.now() - 60_000);
    await utimes(path.join(state, 'marks', 'expected'), old, old);
    expect(await runCheck(check(2), deps())).toMatchObject({
      ok: false,
      code: 'too-few-marks',
      detail: 'FAIL: 2 of 3 slots fresh; missing worker-3, within 30000 ms',
    });
  });

  it('counts a slot missing within max_age of the workers writing expected as starting', async () => {
    await mark('worker-1');
    await writeFile(path.join(state, 'marks', 'expected'), '2\n');
    expect(await runCheck(check(1), deps())).toMatchObject({ ok: true, code: 'ok' });
    await mark('worker-2', 60_000);
    expect(await runCheck(check(1), deps())).toMatchObject({ ok: false, code: 'stale-marks' });
  });

  it('counts only worker-<n> files as slots: a stray fresh file does not stand in for a missing one', async () => {
    await writeExpected(2);
    await mark('worker-1');
    await mark('junk');
    await mark('worker-2.bak');
    expect(await runCheck(check(undefined), deps())).toMatchObject({
      ok: false,
      code: 'too-few-marks',
      detail: 'FAIL: 1 of 2 slots fresh; missing worker-2, within 30000 ms',
    });
  });

  it('without expected in deploy.yml, expects what the workers wrote', async () => {
    await writeExpected(2);
    await mark('worker-1');
    await mark('worker-2');
    expect(await runCheck(check(undefined), deps())).toMatchObject({
      ok: true,
      detail: 'ok: 2 of 2 slots fresh, within 30000 ms',
    });
  });

  it("takes deploy.yml's expected as a minimum over what the workers wrote", async () => {
    await writeExpected(2);
    await mark('worker-1');
    await mark('worker-2');
    expect(await runCheck(check(3), deps())).toMatchObject({
      ok: false,
      code: 'too-few-marks',
      detail: 'FAIL: 2 of 3 slots fresh; missing worker-3, within 30000 ms',
    });
  });

  it('fails an empty marks directory, saying nothing wrote expected', async () => {
    expect(await runCheck(check(undefined), deps())).toMatchObject({
      ok: false,
      code: 'no-expected',
      detail: `FAIL: nothing wrote ${path.join(state, 'marks', 'expected')}: the workers have not started, or they write their marks elsewhere`,
    });
  });

  it('ignores the mark of a slot above expected, left by a run with more slots', async () => {
    await writeExpected(2);
    await mark('worker-1');
    await mark('worker-2');
    await mark('worker-3', 600_000);
    expect(await runCheck(check(undefined), deps())).toMatchObject({ ok: true, code: 'ok' });
  });

  it('fails with no-marks when the directory does not exist', async () => {
    expect(await runCheck(check(1, 'nowhere'), deps())).toMatchObject({
      ok: false,
      code: 'no-marks',
    });
  });

  it('takes an absolute marks directory as it is', async () => {
    const elsewhere = path.join(state, 'elsewhere');
    await mkdir(elsewhere);
    await mark('worker-1', 0, elsewhere);
    expect(await runCheck(check(1, elsewhere), deps())).toMatchObject({ ok: true, code: 'ok' });
  });

  it('fails at once, in a line of bounded length, when marks/expected names millions of slots', async () => {
    await writeExpected(20_000_000);
    await mark('worker-1');
    const started = performance.now();
    const result = await runCheck(check(undefined), deps());
    expect(performance.now() - started).toBeLessThan(200);
    expect(result).toMatchObject({ ok: false, code: 'bad-expected' });
    expect(result.detail).toContain('"20000000" slots: a reader counts at most 1000');
  });

  it('reads no more of marks/expected than a count can take, whatever its size', async () => {
    await writeFile(path.join(state, 'marks', 'expected'), `1${'0'.repeat(4_000_000)}\n`);
    const result = await runCheck(check(undefined), deps());
    expect(result).toMatchObject({ ok: false, code: 'bad-expected' });
    expect(result.detail!.length).toBeLessThan(300);
  });

  it('names at most ten missing slots in its line, and counts the rest', async () => {
    await writeExpected(1000);
    await mark('worker-1');
    const result = await runCheck(check(undefined), deps());
    expect(result).toMatchObject({ ok: false, code: 'too-few-marks' });
    expect(result.detail).toBe(
      'FAIL: 1 of 1000 slots fresh; missing worker-2, worker-3, worker-4, worker-5, worker-6, worker-7, worker-8, worker-9, worker-10, worker-11 and 989 more, within 30000 ms',
    );
  });

  it('takes a mark from the future, left before the clock stepped back, as that far off', async () => {
    await writeExpected(2);
    await mark('worker-1', -5_000);
    await mark('worker-2', -3_600_000);
    expect(await runCheck(check(undefined), deps())).toMatchObject({
      ok: false,
      code: 'stale-marks',
      detail: 'FAIL: 1 of 2 slots fresh; stale worker-2 (3600s), within 30000 ms',
    });
  });
});
