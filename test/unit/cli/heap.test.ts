import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { FLEET_HEAP_FLAGS, fitHeapToFleet, LARGE_FLEET } from '../../../src/cli/heap.js';

function fit(hosts: number, execArgv: string[] = [], nodeOptions?: string): string[] {
  const set: string[] = [];
  const env = nodeOptions === undefined ? {} : { NODE_OPTIONS: nodeOptions };
  const fitted = fitHeapToFleet(hosts, { execArgv, env }, (flag) => set.push(flag));
  expect(fitted).toBe(set.length > 0);
  return set;
}

describe("fitHeapToFleet: V8 keeps a large fleet's heap near what it holds", () => {
  it('sets both flags from LARGE_FLEET hosts on, none below', () => {
    expect(fit(LARGE_FLEET - 1)).toEqual([]);
    expect(fit(3)).toEqual([]);
    expect(fit(LARGE_FLEET)).toEqual(['--heap-growing-percent=50', '--semi-space-growth-factor=1']);
    expect(fit(2_000)).toEqual(FLEET_HEAP_FLAGS);
  });

  it("leaves V8 alone when the operator sized its heap, in NODE_OPTIONS or node's arguments", () => {
    expect(fit(2_000, [], '--max-old-space-size=4096')).toEqual([]);
    expect(fit(2_000, ['--max_semi_space_size=64'])).toEqual([]);
    expect(fit(2_000, [], '--enable-source-maps --heap-growing-percent=10')).toEqual([]);
    expect(fit(2_000, ['--max-heap-size=2048'])).toEqual([]);
    expect(fit(2_000, [], '--semi_space_growth_factor=4')).toEqual([]);
  });

  it('is not put off by other node flags', () => {
    expect(fit(2_000, ['--enable-source-maps'], '--no-warnings --max-http-header-size=1')).toEqual(
      FLEET_HEAP_FLAGS,
    );
  });

  it("names flags this node's V8 has, which it takes after start without a word", async () => {
    const options = (await execa(process.execPath, ['--v8-options'])).stdout;
    for (const flag of FLEET_HEAP_FLAGS) expect(options).toContain(flag.split('=')[0]);
    const set = `const v8 = require('node:v8'); for (const f of ${JSON.stringify(FLEET_HEAP_FLAGS)}) v8.setFlagsFromString(f); new Array(1e6).fill({}).length`;
    const run = await execa(process.execPath, ['-e', set]);
    expect(run.stderr).toBe('');
    // an unknown flag is refused on stderr: the check above would see it
    const unknown = await execa(process.execPath, [
      '-e',
      "require('node:v8').setFlagsFromString('--no-such-heap-flag')",
    ]);
    expect(unknown.stderr).not.toBe('');
  });
});
