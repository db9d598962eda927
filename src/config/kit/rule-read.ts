import type { RuleProblem } from './where.js';

/** How the rules read the raw document: defensively, a value of the wrong type is the schema's problem. */

export type Rule = (doc: Readonly<Record<string, unknown>>) => RuleProblem[];

export function duplicates(
  items: unknown[],
  where: string,
  key: string,
  valueOf: (item: Record<string, unknown>) => unknown,
  what: string,
): RuleProblem[] {
  const seen = new Map<string, number>();
  const problems: RuleProblem[] = [];
  items.forEach((item, i) => {
    const value = isRecord(item) ? valueOf(item) : undefined;
    if (typeof value !== 'string') return;
    const first = seen.get(value);
    if (first === undefined) seen.set(value, i);
    else
      problems.push({
        path: [where, i, key],
        message: `duplicate ${what} ${JSON.stringify(value)} (also ${where}[${first}]); each must be unique`,
      });
  });
  return problems;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function record(value: unknown): Readonly<Record<string, unknown>> {
  return isRecord(value) ? value : {};
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}
