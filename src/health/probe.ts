import { parseArgs } from 'node:util';
import { MAX_SLOTS, readMarks } from './read-marks.js';

const USAGE = 'usage: node probe.cjs --dir DIR --max-age 30s [--expected N] [--grace 10s]';
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "30s", "500ms", "2m"; a bare number is seconds */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m?.[1]) return undefined;
  return Number(m[1]) * (UNITS[m[2] ?? 's'] ?? 1000);
}

/**
 * The standalone probe's logic: argv in, one line and an exit code out
 * (0 fresh, 1 missing or stale, 2 bad usage). For a Kubernetes exec probe,
 * systemd or monit, which run it as a fresh process every few seconds.
 */
export function runProbe(argv: readonly string[], now: number): { code: 0 | 1 | 2; line: string } {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        dir: { type: 'string' },
        'max-age': { type: 'string' },
        expected: { type: 'string' },
        grace: { type: 'string' },
      },
    }) as { values: Record<string, string | undefined> });
  } catch (e) {
    return { code: 2, line: `${e instanceof Error ? e.message : String(e)}\n${USAGE}` };
  }
  const maxAgeMs = parseDuration(values['max-age'] ?? '');
  const expected = values.expected === undefined ? 0 : Number(values.expected);
  const graceMs = parseDuration(values.grace ?? '0');
  if (
    !values.dir ||
    maxAgeMs === undefined ||
    !Number.isSafeInteger(expected) ||
    expected < 0 ||
    expected > MAX_SLOTS ||
    graceMs === undefined
  )
    return { code: 2, line: USAGE };
  const report = readMarks(values.dir, { maxAgeMs, expected, startGraceMs: graceMs, now });
  return { code: report.ok ? 0 : 1, line: report.line };
}
