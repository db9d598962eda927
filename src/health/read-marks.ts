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

export interface MarksReport {
  readonly ok: boolean;
  /** `ok`, `no-marks`, `too-few-marks`, `stale-marks` */
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

/** dot files and *.tmp are a write in progress, or left by a worker killed mid-write */
const isMark = (name: string): boolean =>
  !name.startsWith('.') && !name.endsWith('.tmp') && name !== EXPECTED_FILE;

function readExpected(dir: string): { count: number; writtenAt: number } | undefined {
  try {
    const file = path.join(dir, EXPECTED_FILE);
    const count = Number(readFileSync(file, 'utf8').trim());
    if (!Number.isSafeInteger(count) || count < 0) return undefined;
    return { count, writtenAt: statSync(file).mtimeMs };
  } catch {
    return undefined;
  }
}

export function readMarks(dir: string, options: ReadMarksOptions): MarksReport {
  let names: string[];
  try {
    names = readdirSync(dir).filter(isMark);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const expected = options.expected ?? 0;
    const line = `cannot read ${dir}: ${code}`;
    return { ok: false, code: 'no-marks', expected, fresh: [], stale: [], missing: [], line };
  }
  const written = readExpected(dir);
  const expected = Math.max(options.expected ?? 0, written?.count ?? 0);
  const fresh: string[] = [];
  const stale: { name: string; ageMs: number }[] = [];
  for (const name of names.sort()) {
    let mtime: number;
    try {
      const s = statSync(path.join(dir, name));
      if (!s.isFile()) continue;
      mtime = s.mtimeMs;
    } catch {
      continue; // removed meanwhile
    }
    const ageMs = Math.max(0, options.now - mtime);
    if (ageMs <= options.maxAgeMs) fresh.push(name);
    else stale.push({ name, ageMs });
  }
  const present = new Set(names);
  const missing: string[] = [];
  for (let n = 1; n <= expected && present.size + missing.length < expected; n++)
    if (!present.has(slotMark(n))) missing.push(slotMark(n));
  const graceMs = options.startGraceMs ?? 0;
  // without a grace nothing is starting: an mtime a hair ahead of `now` must not pass
  const starting =
    graceMs > 0 && written !== undefined && options.now - written.writtenAt < graceMs;
  const ok = fresh.length >= expected || (starting && stale.length === 0);
  const code = ok ? 'ok' : names.length < expected ? 'too-few-marks' : 'stale-marks';
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
