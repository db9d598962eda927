import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node } from 'yaml';
import type { ConfigProblem } from '../errors.js';
import { aliasProblems, toPlainData } from './yaml-aliases.js';
import { firstLine, type KeyPath, type Where } from './kit/where.js';

/**
 * The YAML (or JSON) text, parsed once with its node positions kept, so every
 * problem found later can say `file:line:col` instead of leaving the user to
 * hunt for `hosts[1]` in a long file.
 */

export type { KeyPath, Where } from './kit/where.js';

export interface ParsedDocument {
  /** the plain data, or undefined when the text has syntax errors */
  readonly data: unknown;
  readonly syntaxProblems: readonly ConfigProblem[];
  /** the value at `path` (or its key, when `key` names a key of that mapping) */
  locate(path: KeyPath, key?: string): Where | undefined;
}

export function parseText(text: string, source: string): ParsedDocument {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const where = (offset: number): Where => {
    const { line, col } = lines.linePos(offset);
    return { location: `${source}:${line}:${col}`, offset };
  };
  const syntaxProblems: ConfigProblem[] = doc.errors.map((error) => ({
    path: '',
    message: `invalid YAML: ${firstLine(error.message)}`,
    location: where(error.pos[0]).location,
  }));
  if (syntaxProblems.length === 0) syntaxProblems.push(...aliasProblems(doc, where));
  const converted = syntaxProblems.length === 0 ? toPlainData(doc, where) : { data: undefined };
  if (converted.problem) syntaxProblems.push(converted.problem);
  return {
    data: converted.data,
    syntaxProblems,
    locate(path, key) {
      const offset = offsetOf(doc, path, key);
      return offset === undefined ? undefined : where(offset);
    },
  };
}

function offsetOf(doc: Document, path: KeyPath, key: string | undefined): number | undefined {
  let node = resolve(doc, doc.contents);
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && keyText(p.key) === String(segment));
      // a key written with no value has no value node: point at the key
      if (!pair) break;
      const value = resolve(doc, pair.value as Node | null);
      node = value ?? resolve(doc, pair.key as Node | null);
      if (!value) break;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = resolve(doc, node.items[segment] as Node | null | undefined);
      if (!item) break;
      node = item;
    } else {
      break;
    }
  }
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((p) => keyText(p.key) === key);
    const keyNode = pair?.key as Node | null | undefined;
    if (keyNode?.range) return keyNode.range[0];
  }
  return node?.range?.[0];
}

function resolve(doc: Document, node: Node | null | undefined): Node | null | undefined {
  return isAlias(node) ? node.resolve(doc) : node;
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String(key.value) : undefined;
}
