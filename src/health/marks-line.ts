/** the names a line spells out; the report itself keeps them all */
const LISTED = 10;

/**
 * One line for a person: how many slots are fresh, which are missing or
 * stale. Bounded: a line goes into verify's output and the watchdog's log,
 * so a thousand missing slots are named by their first few and a count.
 */
export function describeMarks(
  ok: boolean,
  expected: number,
  fresh: readonly string[],
  stale: readonly { readonly name: string; readonly ageMs: number }[],
  missing: readonly string[],
): string {
  const head = `${fresh.length} of ${expected} slots fresh`;
  const parts = [
    missing.length > 0 ? `missing ${list(missing)}` : '',
    stale.length > 0
      ? `stale ${list(stale.map((s) => `${s.name} (${Math.round(s.ageMs / 1000)}s)`))}`
      : '',
  ].filter(Boolean);
  return `${ok ? 'ok' : 'FAIL'}: ${head}${parts.length > 0 ? `; ${parts.join('; ')}` : ''}`;
}

function list(names: readonly string[]): string {
  const shown = names.slice(0, LISTED).join(', ');
  return names.length > LISTED ? `${shown} and ${names.length - LISTED} more` : shown;
}
