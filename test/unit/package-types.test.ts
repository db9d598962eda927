import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The Node typings must describe the oldest Node that `engines` allows: with
 * older ones an API that exists since (a `readdir` option, `fs.glob`) fails
 * to type-check, and one since removed still type-checks.
 */
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

describe('package.json', () => {
  it('types Node as the oldest major that engines allows', () => {
    const oldest = /^>=(\d+)\./.exec(pkg.engines.node)?.[1];
    const typed = /^(\d+)\./.exec(pkg.devDependencies['@types/node'] ?? '')?.[1];
    expect(oldest).toBe('22');
    expect(typed).toBe(oldest);
  });
});
