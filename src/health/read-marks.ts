import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

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

function readExpected(dir: string): { count: number; writtenAt: number } | undefined {
  try {
    const file = path.join(dir, EXPECTED_FILE);
    const count = Number(readFileSync(file, 'utf8').trim());
    if (!Number.isSafeInteger(count) || count < 1) return undefined;
    return { count, writtenAt: statSync(file).mtimeMs };
  } catch {
    return undefined;
  }
}

export function readMarks(dir: string, options: ReadMarksOptions): MarksReport {
  let names: Set<string>;
  try {
    // only `worker-<n>`: dot files, *.tmp (a write in progress, or one a killed worker
    // left) and any stray file are no slots, however fresh
    names = new Set(readdirSync(dir).filter(isSlotMark));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const line = `cannot read ${dir}: ${code}`;
    return failure('no-marks', options.expected ?? 0, line);
  }
  const written = readExpected(dir);
  const expected = Math.max(options.expected ?? 0, written?.count ?? 0);
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
    const name = slotMark(n);
    const mtime = names.has(name) ? fileMtime(path.join(dir, name)) : undefined;
    if (mtime === undefined) {
      missing.push(name);
      continue;
    }
    const ageMs = Math.max(0, options.now - mtime);
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
    line: describe(ok, expected, fresh, stale, missing),
  };
}

function failure(code: string, expected: number, line: string): MarksReport {
  return { ok: false, code, expected, fresh: [], stale: [], missing: [], line };
}

/** undefined: no such file (or removed meanwhile), or not a file */
function fileMtime(file: string): number | undefined {
  try {
    const s = statSync(file);
    return s.isFile() ? s.mtimeMs : undefined;
  } catch {
    return undefined;
  }
}

function describe(
  ok: boolean,
  expected: number,
  fresh: readonly string[],
  stale: MarksReport['stale'],
  missing: readonly string[],
): string {
  const head = `${fresh.length} of ${expected} slots fresh`;
  const parts = [
    missing.length > 0 ? `missing ${missing.join(', ')}` : '',
    stale.length > 0
      ? `stale ${stale.map((s) => `${s.name} (${Math.round(s.ageMs / 1000)}s)`).join(', ')}`
      : '',
  ].filter(Boolean);
  return `${ok ? 'ok' : 'FAIL'}: ${head}${parts.length > 0 ? `; ${parts.join('; ')}` : ''}`;
}
