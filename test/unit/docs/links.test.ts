import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, repoRoot } from '../../support/doc-pages.js';

const root = repoRoot;
const docs = docPages;

/** `.js` in an import names the `.ts` source in this repository */
const exists = (file: string): boolean =>
  existsSync(file) || (file.endsWith('.js') && existsSync(file.replace(/\.js$/, '.ts')));

const inside = (file: string): boolean => {
  const rel = path.relative(root, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
};

/**
 * Where a README or docs page points outside the repository: a link to a
 * file that is not in it (or not there), a path of the machine it was
 * written on, an import a reader does not have. Web addresses are fine.
 */
function outsidePointers(file: string, text: string): string[] {
  const found: string[] = [];
  const dir = path.dirname(path.join(root, file));
  text.split('\n').forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1] ?? '';
      if (/^(?:https?:|mailto:|#)/.test(target)) continue;
      const resolved = path.resolve(dir, decodeURI(target.replace(/#.*$/, '')));
      if (!inside(resolved) || !exists(resolved)) found.push(`${at}: link ${target}`);
    }
    for (const m of line.matchAll(
      /(?:^|[\s`'"(])(\/work\/[^\s)`'"]*|(?:\.\.\/)+shared\/[^\s)`'"]*)/g,
    ))
      found.push(`${at}: path ${m[1] ?? ''}`);
    for (const m of line.matchAll(/(?:from|import|require\()\s*['"](\.\.\/[^'"]+)['"]/g)) {
      const spec = m[1] ?? '';
      // only the lab's page shows code for this repository's own tests (test/e2e/)
      const from = file === 'docs/lab.md' ? path.join(root, 'test', 'e2e') : undefined;
      const resolved = from && path.resolve(from, spec);
      if (!resolved || !inside(resolved) || !exists(resolved)) found.push(`${at}: import ${spec}`);
    }
  });
  return found;
}

describe('README.md and docs/ stand alone', () => {
  it('point to nothing outside the repository', () => {
    const found = docs.flatMap((f) => outsidePointers(f, readFileSync(path.join(root, f), 'utf8')));
    expect(found).toEqual([]);
  });

  it('would catch a link out of the repository, a machine path and an import a user lacks', () => {
    expect(
      outsidePointers(
        'README.md',
        [
          'See [the design](../shared/DESIGN.md) and [gone](docs/nothing.md).',
          'Fine: [docs](docs/ssh.md#proxyjump), [web](https://example.com/x.md), [here](#install).',
          'Edit /work/main/deploy.yml first.',
        ].join('\n'),
      ),
    ).toEqual([
      'README.md:1: link ../shared/DESIGN.md',
      'README.md:1: link docs/nothing.md',
      'README.md:1: path ../shared/DESIGN.md',
      'README.md:3: path /work/main/deploy.yml',
    ]);
    expect(
      outsidePointers(
        'docs/health-library.md',
        "import { createHealth } from '../../src/health/index.js';\nimport x from './mine.js';",
      ),
    ).toEqual(['docs/health-library.md:1: import ../../src/health/index.js']);
    expect(
      outsidePointers('docs/lab.md', "import { startLab } from '../../scripts/lab/index.js';"),
    ).toEqual([]);
  });
});
