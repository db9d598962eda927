import { UsageError } from '../../errors.js';

/**
 * Durations are written with a unit ("500ms", "15s", "2m", "1h", "1m30s") and
 * parsed once, here. A bare number is refused: "interval: 5" could mean
 * seconds or milliseconds, and guessing wrong drains a host 1000× too early.
 */

/** milliseconds: every duration of the Config */
export type Duration = number;

export type ParsedDuration =
  { readonly ok: true; readonly ms: Duration } | { readonly ok: false; readonly reason: string };

const units = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;
// largest unit first, each at most once; `m(?!s)` keeps "500ms" from reading as minutes
const pattern = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/;
const example = 'write it like 500ms, 15s, 2m, 1h or 1m30s';
const maxShown = 32;
/**
 * Node's timers hold at most 2³¹−1 ms (24.8 days) and fire after 1 ms beyond
 * that: `stop_timeout: 700h` would kill a stopping service at once.
 */
export const MAX_DURATION_MS = 24 * 24 * units.h;

/**
 * A wait built from a sum of durations (each capped above) can still pass what
 * a timer holds, and Node fires such a timer after 1 ms: clamp it to the cap.
 */
export function timerMs(ms: number): number {
  return Math.min(ms, MAX_DURATION_MS);
}

/** Reads a duration from config or the environment; never throws. */
export function readDuration(input: unknown): ParsedDuration {
  if (typeof input === 'number') {
    return { ok: false, reason: `a duration needs a unit: ${input} is ambiguous; ${example}` };
  }
  if (typeof input !== 'string') {
    return { ok: false, reason: `expected a duration (${example}), got ${describe(input)}` };
  }
  const text = input.trim();
  const match = text === '' ? null : pattern.exec(text);
  if (!match) {
    if (/^-\s*\d/.test(text)) return { ok: false, reason: `must be positive, got ${show(text)}` };
    return { ok: false, reason: `${show(text)} is not a duration; ${example}` };
  }
  const [, h, m, s, ms] = match;
  const total =
    Number(h ?? 0) * units.h +
    Number(m ?? 0) * units.m +
    Number(s ?? 0) * units.s +
    Number(ms ?? 0);
  if (total <= 0) return { ok: false, reason: `must be positive, got ${show(text)}` };
  if (total > MAX_DURATION_MS)
    return {
      ok: false,
      reason: `${show(text)} is longer than 24 days (576h), the most a timer can wait`,
    };
  return { ok: true, ms: total };
}

/** For command-line flags: a bad value is a usage error. */
export function parseDuration(text: string, what = 'duration'): Duration {
  const parsed = readDuration(text);
  if (!parsed.ok) throw new UsageError(`${what}: ${parsed.reason}`);
  return parsed.ms;
}

const spelled: readonly (readonly [string, number])[] = [
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
  ['ms', 1],
];

/**
 * `90000` → `1m30s`, `500` → `500ms`, `15001` → `15s1ms`. Never rounds to a
 * coarser unit: an invariant that fails by one millisecond must say so.
 */
export function formatDuration(ms: Duration): string {
  if (!Number.isFinite(ms)) return `${ms}ms`;
  if (ms < 0) return `-${formatDuration(-ms)}`;
  let rest = Math.round(ms);
  if (rest === 0) return '0s';
  let out = '';
  for (const [unit, size] of spelled) {
    const count = Math.floor(rest / size);
    if (count > 0) out += `${count}${unit}`;
    rest -= count * size;
  }
  return out;
}

/** Quotes a value for a message, cut short so a pasted blob never floods a log. */
export function show(value: string): string {
  const cut = value.length > maxShown ? `${value.slice(0, maxShown)}…` : value;
  return JSON.stringify(cut);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}
