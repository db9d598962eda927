/** One line of a benchmark's table: a figure, its baseline from the same run, and the goal. */
export interface Row {
  readonly figure: string;
  readonly value: string;
  readonly baseline: string;
  /** value ÷ baseline, or undefined where the figure has no baseline */
  readonly ratio?: number;
  readonly goal: string;
  /** undefined: recorded, no goal to pass */
  readonly pass?: boolean;
}

const pad = (cells: readonly string[], widths: readonly number[]): string =>
  cells
    .map((c, i) => c.padEnd(widths[i] ?? 0))
    .join('  ')
    .trimEnd();

/** A plain-text table, one row per figure, ending with the benchmark's verdict. */
export function formatTable(title: string, rows: readonly Row[]): string {
  const header = ['figure', 'value', 'baseline', 'ratio', 'goal', 'result'];
  const cells = rows.map((r) => [
    r.figure,
    r.value,
    r.baseline,
    r.ratio === undefined ? '-' : `${r.ratio.toFixed(2)}×`,
    r.goal,
    r.pass === undefined ? '-' : r.pass ? 'pass' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]?.length ?? 0)));
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [`## ${title}`, '', pad(header, widths), rule, ...cells.map((c) => pad(c, widths))].join(
    '\n',
  );
}

export const allPass = (rows: readonly Row[]): boolean => rows.every((r) => r.pass !== false);

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export const ms = (value: number): string => `${Math.round(value)} ms`;
export const mb = (kib: number): string => `${(kib / 1024).toFixed(1)} MB`;
