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
