import type { KeyPath } from './document.js';

/**
 * "Did you mean …" for unknown keys. The candidate keys come from the JSON
 * Schema, the same source `deploy schema` prints, so they cannot go stale.
 */

/** the keys allowed in the mapping at `path`; for a union, the keys of every option */
export function keysAt(schema: unknown, path: KeyPath): string[] {
  let nodes: unknown[] = [schema];
  for (const segment of path) {
    nodes = nodes.flatMap(options).flatMap((node) => {
      if (typeof segment === 'number') return field(node, 'items') ?? [];
      const properties = field(node, 'properties');
      return properties ? (field(properties, String(segment)) ?? []) : [];
    });
  }
  const keys = nodes
    .flatMap(options)
    .flatMap((node) => Object.keys((field(node, 'properties') as object | undefined) ?? {}));
  return [...new Set(keys)];
}

/** the candidate within a couple of edits of `word`, if exactly one is closest */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function options(node: unknown): unknown[] {
  const alternatives = [field(node, 'oneOf'), field(node, 'anyOf')].filter(Array.isArray);
  // the node too: deploy.yml's root has properties beside its oneOf (balancer or balancers)
  if (alternatives.length > 0) return [node, ...alternatives.flat().flatMap(options)];
  // chosen by a discriminator (json-schema.ts: `if` kind, `then` its keys): every branch
  const branches = field(node, 'allOf');
  if (!Array.isArray(branches)) return [node];
  return [node, ...(branches as unknown[]).map((b) => field(b, 'then') ?? b).flatMap(options)];
}

function field(node: unknown, key: string): unknown {
  return typeof node === 'object' && node !== null
    ? (node as Record<string, unknown>)[key]
    : undefined;
}

/** Levenshtein distance, with a transposition counted as one edit */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, at(i - 2, j - 2) + 1);
      }
      const row = rows[i];
      if (row) row[j] = d;
    }
  }
  return at(a.length, b.length);
}
