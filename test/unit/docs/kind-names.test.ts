import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindConfigs } from '../../../src/config/balancer-kinds.js';

const root = path.resolve(import.meta.dirname, '../../..');

/** the registries, which list the kinds by name */
const REGISTRIES = new Set(['src/balancer/kinds.ts', 'src/config/balancer-kinds.ts']);

/**
 * Each place in `files` that names a balancer kind as a string literal
 * (`'haproxy'`, `"alb"`), outside that kind's own folder
 * (`src/balancer/<kind>/`) and the registries: `file:line: 'kind'`.
 */
function kindNames(files: ReadonlyMap<string, string>, kinds: readonly string[]): string[] {
  const literal = new RegExp(`(['"\`])(${kinds.join('|')})\\1`, 'g');
  const found: string[] = [];
  for (const [file, text] of files) {
    if (REGISTRIES.has(file)) continue;
    text.split('\n').forEach((line, i) => {
      for (const m of line.matchAll(literal))
        if (!file.startsWith(`src/balancer/${m[2]}/`)) found.push(`${file}:${i + 1}: ${m[0]}`);
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

  it('names each one with its file and line', () => {
    const files = new Map([
      ['src/evidence/pick.ts', "const x = 1;\nif (b.kind === 'haproxy') read();\n"],
      ['src/balancer/haproxy/kind.ts', "kind: 'haproxy'"],
      ['src/balancer/alb/kind.ts', 'kind: "haproxy"'],
      ['src/config/balancer-kinds.ts', "'alb'"],
      ['src/rollout/text.ts', "say('an haproxy backend')"],
    ]);
    expect(kindNames(files, kinds)).toEqual([
      "src/evidence/pick.ts:2: 'haproxy'",
      'src/balancer/alb/kind.ts:1: "haproxy"',
    ]);
  });

  it('finds none in src/', async () => {
    expect(kindNames(await sources(), kinds)).toEqual([]);
  });
});
