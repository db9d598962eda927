import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, repoRoot } from '../../support/doc-pages.js';
import { parse } from 'yaml';
import { childrenOf, objectsOf, schema, type Schema } from '../../support/schema-keys.js';

const root = repoRoot;
const pages = docPages;

/** the keys of `value` (at `at`) that no variant of `here` takes, recursively */
function unknownKeys(value: unknown, here: readonly Schema[], at: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => unknownKeys(v, here, `${at}[]`));
  if (!value || typeof value !== 'object' || here.flatMap(objectsOf).length === 0) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const next = childrenOf(here, key);
    const where = at ? `${at}.${key}` : key;
    return next.length ? unknownKeys(v, next, where) : [where];
  });
}

const topKeys = new Set(Object.keys(schema.properties ?? {}));

/** the ```yaml blocks of a page that are deploy.yml, whole or in part */
function deployYmlExamples(text: string): { line: number; doc: unknown }[] {
  const found: { line: number; doc: unknown }[] = [];
  for (const m of text.matchAll(/```ya?ml\n([\s\S]*?)```/g)) {
    const doc: unknown = parse(m[1] ?? '');
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) continue;
    if (!Object.keys(doc).some((k) => topKeys.has(k))) continue;
    found.push({ line: text.slice(0, m.index).split('\n').length, doc });
  }
  return found;
}

describe('deploy.yml examples in README and docs', () => {
  const examples = pages.flatMap((page) =>
    deployYmlExamples(readFileSync(path.join(root, page), 'utf8')).map((e) => ({ page, ...e })),
  );

  it('there are some, in the pages that explain keys', () => {
    const where = new Set(examples.map((e) => e.page));
    for (const page of ['docs/configuration.md', 'docs/ssh.md', 'docs/balancers.md'])
      expect(where, page).toContain(page);
  });

  it('use only keys deploy.yml takes', () => {
    const unknown = examples.flatMap((e) =>
      unknownKeys(e.doc, [schema], '').map((k) => `${e.page}:${e.line}: ${k}`),
    );
    expect(unknown).toEqual([]);
  });

  it('would name a key that does not exist, with its path', () => {
    const doc: unknown = parse(
      'ssh:\n  user: deploy\n  keepalive: 15s\nservices:\n  - name: a\n    check: { htp: x }\n',
    );
    expect(unknownKeys(doc, [schema], '')).toEqual(['ssh.keepalive', 'services[].check.htp']);
  });
});
