import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

/** Every .ts file under `dir`, as a path relative to the repository. */
async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(root, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .sort();
}

/**
 * A file on a command's path (src/cli/) has a name no other file of src/
 * has (index.ts aside): `lock.ts` names one file, whichever tab or trace
 * shows it. Each clash is named with both paths.
 */
function clashes(files: readonly string[]): string[] {
  const byName = new Map<string, string[]>();
  for (const f of files) {
    const name = path.basename(f);
    if (name !== 'index.ts') byName.set(name, [...(byName.get(name) ?? []), f]);
  }
  return [...byName.values()]
    .filter((paths) => paths.length > 1 && paths.some((p) => p.startsWith('src/cli/')))
    .map((paths) => `${paths.join(' and ')} share a name: rename the one in src/cli/`);
}

describe('file names on a command path (issue 36)', () => {
  it('name each clash with both paths', () => {
    expect(
      clashes([
        'src/cli/commands/lock.ts',
        'src/cli/lock/lock.ts',
        'src/host/lock.ts',
        'src/host/a/kind.ts',
        'src/host/b/kind.ts',
        'src/cli/index.ts',
        'src/host/index.ts',
      ]),
    ).toEqual([
      'src/cli/commands/lock.ts and src/cli/lock/lock.ts and src/host/lock.ts share a name: rename the one in src/cli/',
    ]);
  });

  it('find none in src/', async () => {
    expect(clashes(await sources('src'))).toEqual([]);
  });
});
