import type { Duration } from '../config/types.js';

const units: readonly (readonly [string, number])[] = [
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
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) out += `${count}${unit}`;
    rest -= count * size;
  }
  return out;
}

/**
 * A measured time, rounded for a person: `1234` → `1.2s`, `75000` → `1m15s`,
 * `12` → `12ms`. The one formatter of elapsed times (steps, waits, hooks);
 * a configured value is written exactly with formatDuration.
 */
export function formatMs(ms: number): string {
  if (ms < 1000) return formatDuration(ms);
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
  // seconds first: 119.6 s is 2m, not 1m60s
  const seconds = Math.round(ms / 1000);
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return s ? `${m}m${s}s` : `${m}m`;
}
