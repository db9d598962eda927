import { formatDuration } from '../config/kit/duration.js';

export { formatDuration };

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
