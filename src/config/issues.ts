import type { z } from 'zod';
import type { ConfigProblem } from '../errors.js';
import type { KeyPath, ParsedDocument } from './document.js';
import { configJsonSchema } from './json-schema.js';
import type { RuleProblem } from './rules.js';
import { closest, keysAt } from './suggest.js';

/**
 * zod issues → one problem per mistake, each with its key path and position.
 * An unknown key becomes one line per key, with the key it probably meant.
 */

export interface LocatedProblem extends ConfigProblem {
  readonly offset?: number;
}

/**
 * `hosts[1].address`. A key that is not a plain word is written quoted,
 * `ssh["a\u001b[2Jb"]`: an unknown key is the file's content, and a newline
 * or an ESC in it must not reach the terminal as one.
 */
export function formatPath(path: KeyPath): string {
  return path
    .map((segment, i) => {
      if (typeof segment === 'number') return `[${segment}]`;
      const key = String(segment);
      if (!/^[A-Za-z0-9_-]+$/.test(key)) return `[${JSON.stringify(key)}]`;
      return `${i === 0 ? '' : '.'}${key}`;
    })
    .join('');
}

export function problemAt(
  doc: ParsedDocument,
  path: KeyPath,
  message: string,
  key?: string,
): LocatedProblem {
  const where = doc.locate(path, key);
  const full = key === undefined ? path : [...path, key];
  return { path: formatPath(full), message, location: where?.location, offset: where?.offset };
}

/** The schema's issues and the rules' problems, as one list. */
export function collectProblems(
  issues: readonly z.core.$ZodIssue[],
  rules: readonly RuleProblem[],
  doc: ParsedDocument,
): LocatedProblem[] {
  const schema = issues.some((i) => i.code === 'unrecognized_keys') ? configJsonSchema() : {};
  const problems: LocatedProblem[] = [];
  // a misspelt key is one mistake: its "did you mean" line stands in for the
  // "required" lines of the key it meant
  const meant = new Set<string>();
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const known = keysAt(schema, issue.path);
    for (const key of issue.keys) {
      const guess = closest(key, known);
      if (guess) meant.add(formatPath([...issue.path, guess]));
      const hint = guess ? ` (did you mean '${guess}'?)` : '';
      problems.push(problemAt(doc, issue.path, `unknown key${hint}`, key));
    }
  }
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') continue;
    const isMissing = issue.code === 'invalid_type' && issue.message === 'required';
    if (isMissing && meant.has(formatPath(issue.path))) continue;
    problems.push(problemAt(doc, issue.path, issue.message));
  }
  for (const rule of rules) {
    if (!meant.has(formatPath(rule.path))) problems.push(problemAt(doc, rule.path, rule.message));
  }
  return problems;
}

/**
 * The whole file is not a mapping: most likely the wrong file (`-c .env`).
 * Its content is never quoted: it may be a line of secrets.
 */
function notAConfig(input: unknown): string {
  return `the file holds ${kindOf(input, false)}, not a mapping of deploy.yml keys; pass -c with the deploy.yml`;
}

/** zod's fallback messages, said the way a deploy.yml author thinks. */
export const issueMessage: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'required';
      if ((issue.path ?? []).length === 0) return notAConfig(issue.input);
      return `expected ${nameOf(issue.expected)}, got ${kindOf(issue.input)}`;
    case 'invalid_value':
      return `must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    case 'too_small':
      return `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}`;
    default:
      return undefined;
  }
};

function nameOf(expected: string): string {
  const names: Record<string, string> = {
    object: 'a mapping',
    array: 'a list',
    boolean: 'true or false',
    int: 'a whole number',
  };
  return names[expected] ?? `a ${expected}`;
}

function kindOf(input: unknown, quote = true): string {
  if (input === null) return 'nothing (null)';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  const shown = quote && typeof input === 'string' ? ` ${JSON.stringify(input.slice(0, 32))}` : '';
  return `a ${typeof input}${shown}`;
}
