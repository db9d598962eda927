import { messageOf } from '../errors.js';
import { visit } from 'yaml';
import type { Document, Node } from 'yaml';
import type { ConfigProblem } from '../errors.js';
import { firstLine, type Where } from './kit/where.js';

/**
 * YAML aliases, which the parser accepts and `toJS` throws on: an alias with
 * no anchor before it, and a few lines of anchors and aliases that expand
 * into millions of nodes (a "billion laughs"). Both are one located line of
 * a bad file, never an internal error with a stack trace.
 */

const MAX_ALIAS_COUNT = 100;

export function aliasProblems(doc: Document, where: (offset: number) => Where): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  visit(doc, {
    Alias(_key, alias) {
      if (alias.resolve(doc) !== undefined) return;
      problems.push({
        path: '',
        message: `invalid YAML: alias *${alias.source} has no anchor &${alias.source} before it`,
        location: where(alias.range?.[0] ?? 0).location,
      });
    },
  });
  return problems;
}

/** The plain data, or the one problem that kept it from being built. */
export function toPlainData(
  doc: Document,
  where: (offset: number) => Where,
): { data: unknown; problem?: ConfigProblem } {
  try {
    return { data: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    const excessive = error instanceof ReferenceError && /alias count/i.test(error.message);
    const reason = excessive
      ? `its aliases expand into too many nodes (the limit of ${MAX_ALIAS_COUNT} keeps out alias bombs); write the values out`
      : firstLine(messageOf(error));
    return {
      data: undefined,
      problem: {
        path: '',
        message: `invalid YAML: ${reason}`,
        location: where(firstAlias(doc)?.range?.[0] ?? 0).location,
      },
    };
  }
}

function firstAlias(doc: Document): Node | undefined {
  let first: Node | undefined;
  visit(doc, {
    Alias(_key, alias) {
      first = alias;
      return visit.BREAK;
    },
  });
  return first;
}
