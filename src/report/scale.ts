import { formatMs } from '../timing/duration.js';

const STEPS = [
  100, 250, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
  900_000, 1_800_000, 3_600_000,
];

/** The time axis's ticks: the smallest step that gives at most `most` of them. */
export function ticks(totalMs: number, most = 10): { ms: number; label: string }[] {
  const step =
    STEPS.find((s) => totalMs / s <= most) ?? Math.ceil(totalMs / most / 3_600_000) * 3_600_000;
  const out: { ms: number; label: string }[] = [];
  for (let ms = 0; ms <= totalMs; ms += step) out.push({ ms, label: formatMs(ms) });
  return out;
}
