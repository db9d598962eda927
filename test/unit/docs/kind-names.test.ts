import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindConfigs } from '../../../src/config/balancer-kinds.js';

const root = path.resolve(import.meta.dirname, '../../..');

/** the registries, which list the kinds by name */
const REGISTRIES = new Set(['src/balancer/kinds.ts', 'src/config/balancer-kinds.ts']);

/**
 * Where a kind's name is a word of the language the file is written in, not
 * the kind: TypeScript's `static` modifier (`static readonly code`), CSS's
 * `position:static`. Everywhere else the word is the kind, in code, strings
 * and comments alike.
 */
const NOT_THE_KIND =
  /(?<=:)static\b|\bstatic(?=\s+(readonly|async|get|set|override|private|protected|public|#|\w+\s*[(=:<;!?]))/gi;

/**
 * Each place in `files` that names a balancer kind as a whole word, in any
 * case (`'haproxy'`, `an HAProxy pair`, `// the ALB's`), outside that kind's
 * own folder (`src/balancer/<kind>/`) and the registries: `file:line: word`.
 */
function kindNames(files: ReadonlyMap<string, string>, kinds: readonly string[]): string[] {
  const word = new RegExp(`\\b(${kinds.join('|')})\\b`, 'gi');
  const found: string[] = [];
  for (const [file, text] of files) {
    if (REGISTRIES.has(file)) continue;
    text.split('\n').forEach((line, i) => {
      for (const m of line.replace(NOT_THE_KIND, '').matchAll(word))
        if (!file.startsWith(`src/balancer/${m[1]!.toLowerCase()}/`))
          found.push(`${file}:${i + 1}: ${m[0]}`);
    });
  }
  return found;
}

async function sources(): Promise<Map<string, string>> {
  const entries = await readdir(path.join(root, 'src'), { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
  return new Map(
    await Promise.all(
      files.map(async (f) => [f, await readFile(path.join(root, f), 'utf8')] as const),
    ),
  );
}

describe('no kind name outside its folder and the registries (issue 37)', () => {
  const kinds = kindConfigs.map(([name]) => name);

  it('names each one with its file and line: code, strings and comments, any case', () => {
    const files = new Map([
      ['src/evidence/pick.ts', "const x = 1;\nif (b.kind === 'haproxy') read();\n"],
      ['src/balancer/haproxy/kind.ts', "kind: 'haproxy' // an HAProxy"],
      ['src/balancer/alb/kind.ts', 'kind: "haproxy"'],
      ['src/config/balancer-kinds.ts', "'alb'"],
      ['src/rollout/text.ts', "say('an HAProxy backend') // behind an ALB"],
      ['src/timing/bounds.ts', ' * unknown (static), it falls back'],
      ['src/config/starter.ts', '  kind: static'],
      ['src/rollout/albums.ts', 'const albums = staticky(nginxed);'],
    ]);
    expect(kindNames(files, kinds)).toEqual([
      'src/evidence/pick.ts:2: haproxy',
      'src/balancer/alb/kind.ts:1: haproxy',
      'src/rollout/text.ts:1: HAProxy',
      'src/rollout/text.ts:1: ALB',
      'src/timing/bounds.ts:1: static',
      'src/config/starter.ts:1: static',
    ]);
  });

  it('reads `static` as the language’s own word where it is one', () => {
    const files = new Map([
      ['src/errors.ts', "  static readonly code = 'agent-version';\n  static #made = 0;"],
      ['src/report/page-style.ts', '.legend .bound{position:static;height:.5rem}'],
      ['src/rollout/text.ts', 'static of(x) {}'],
    ]);
    expect(kindNames(files, kinds)).toEqual([]);
  });

  it('finds none in src/', async () => {
    expect(kindNames(await sources(), kinds)).toEqual([]);
  });
});
