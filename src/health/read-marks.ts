import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { describeMarks } from './marks-line.js';

/**
 * The one reader of heartbeat marks: the standalone probe (dist/probe.cjs)
 * and the host's `heartbeat` check both use it, so they cannot disagree on
 * what a dead slot is. Synchronous and dependency-free on purpose: the probe
 * must start about as fast as `node -e ''`.
 */

/** every slot rewrites it at start: how many slots the workers run */
export const EXPECTED_FILE = 'expected';
export const slotMark = (slot: number): string => `worker-${slot}`;
/** only what `slotMark` writes is a slot: a stray file, fresh or not, never stands in for one */
const SLOT_MARK = /^worker-[1-9][0-9]{0,6}$/;
export const isSlotMark = (name: string): boolean => SLOT_MARK.test(name);
/**
 * The most slots a reader counts. `expected` is written by the workers, in a
 * directory mounted into containers: without a bound, `20000000` there would
 * cost a watchdog tick (or the lock holder's verify) seconds of synchronous
 * stats, gigabytes and a line of hundreds of megabytes.
 */
export const MAX_SLOTS = 1000;
/** more than enough for any count up to MAX_SLOTS, and all that is ever read of the file */
const EXPECTED_BYTES = 16;

export interface MarksReport {
  readonly ok: boolean;
  /** `ok`, `no-marks`, `no-expected`, `too-few-marks`, `stale-marks` */
  readonly code: string;
  /** the larger of what the workers wrote and the caller's minimum */
  readonly expected: number;
  readonly fresh: readonly string[];
  readonly stale: readonly { readonly name: string; readonly ageMs: number }[];
  /** `worker-<n>` up to `expected` with no mark at all */
  readonly missing: readonly string[];
  /** one line for a person: what is missing or stale */
  readonly line: string;
}

export interface ReadMarksOptions {
  readonly maxAgeMs: number;
  /** a minimum; the workers' own `expected` file may raise it */
  readonly expected?: number;
  /** a slot missing while `expected` is younger than this is still starting, not dead */
  readonly startGraceMs?: number;
  readonly now: number;
}

type Expected = { count: number; writtenAt: number } | { tooMany: string } | undefined;

function readExpected(dir: string): Expected {
  const file = path.join(dir, EXPECTED_FILE);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(EXPECTED_BYTES + 1);
    const text = buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0)).trim();
    const count = Number(text);
    if (text.length > EXPECTED_BYTES || count > MAX_SLOTS) return { tooMany: text.slice(0, 12) };
    if (!Number.isSafeInteger(count) || count < 1) return undefined;
    return { count, writtenAt: statSync(file).mtimeMs };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function readMarks(dir: string, options: ReadMarksOptions): MarksReport {
  try {
    // never a listing: the directory may hold any number of names
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const line = `cannot read ${dir}: ${code}`;
    return failure('no-marks', options.expected ?? 0, line);
  }
  const written = readExpected(dir);
  if (written && 'tooMany' in written)
    return failure(
      'bad-expected',
      0,
      `FAIL: ${path.join(dir, EXPECTED_FILE)} says ${JSON.stringify(written.tooMany)} slots: a reader counts at most ${MAX_SLOTS}; whatever wrote it is not a worker of this service`,
    );
  const expected = Math.max(options.expected ?? 0, written?.count ?? 0);
  if (expected > MAX_SLOTS)
    return failure(
      'bad-expected',
      expected,
      `FAIL: ${expected} slots expected: a reader counts at most ${MAX_SLOTS}`,
    );
  // nobody said how many: "0 of 0" would pass a worker that never started
  if (expected === 0)
    return failure(
      'no-expected',
      0,
      `FAIL: nothing wrote ${path.join(dir, EXPECTED_FILE)}: the workers have not started, or they write their marks elsewhere`,
    );
  const fresh: string[] = [];
  const stale: { name: string; ageMs: number }[] = [];
  const missing: string[] = [];
  // slots 1..expected: a higher one is left over from a run with more slots
  for (let n = 1; n <= expected; n++) {
    // only `worker-<n>`: dot files, *.tmp (a write in progress, or one a killed worker
    // left) and any stray file are no slots, however fresh
    const name = slotMark(n);
    const mtime = fileMtime(path.join(dir, name));
    if (mtime === undefined) {
      missing.push(name);
      continue;
    }
    // a mark from the future was written before the clock stepped back and not since:
    // as old as it is far ahead, or a dead slot would read fresh until time caught up
    const ageMs = Math.abs(options.now - mtime);
    if (ageMs <= options.maxAgeMs) fresh.push(name);
    else stale.push({ name, ageMs });
  }
  const graceMs = options.startGraceMs ?? 0;
  // without a grace nothing is starting: an mtime a hair ahead of `now` must not pass
  const starting =
    graceMs > 0 && written !== undefined && options.now - written.writtenAt < graceMs;
  const ok = fresh.length >= expected || (starting && stale.length === 0);
  const code = ok ? 'ok' : missing.length > 0 ? 'too-few-marks' : 'stale-marks';
  return {
    ok,
    code,
    expected,
    fresh,
    stale,
    missing,
    line: describeMarks(ok, expected, fresh, stale, missing),
  };
}

function failure(code: string, expected: number, line: string): MarksReport {
  return { ok: false, code, expected, fresh: [], stale: [], missing: [], line };
}

/** undefined: no such file (or removed meanwhile), or not a file */
function fileMtime(file: string): number | undefined {
  try {
    const s = statSync(file, { throwIfNoEntry: false });
    return s?.isFile() ? s.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}
