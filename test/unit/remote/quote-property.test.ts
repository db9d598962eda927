import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteArgv } from '../../../src/remote/quote.js';

/**
 * quoteArgv's promise, for any strings at all: the shell sshd hands the line
 * to (`$SHELL -c`) gives the program exactly these arguments back. printf
 * writes each one followed by a NUL, which no argument can hold.
 */

// sh is often a link to dash or bash: each real shell once
const shells = [
  ...new Set(
    ['/bin/sh', '/bin/bash', '/bin/dash', '/bin/zsh']
      .filter((s) => existsSync(s))
      .map((s) => realpathSync(s)),
  ),
];

/** any string a C argument can carry: no NUL, and no lone surrogate (it has no UTF-8) */
const arg = fc
  .oneof(
    fc.string({ unit: 'binary' }),
    fc.string({ unit: 'grapheme' }),
    fc.string({
      unit: fc.constantFrom(
        "'",
        '"',
        '\\',
        '$',
        '`',
        '\n',
        ' ',
        '*',
        '%',
        '!',
        '-',
        ';',
        '&',
        '|',
        '(',
        ')',
        '\u001b',
        'a',
      ),
    }),
  )
  .filter((s) => !s.includes('\0') && !/\p{Cs}/u.test(s));

function run(shell: string, command: string): Buffer {
  return execFileSync(shell, ['-c', command], { maxBuffer: 1 << 24 });
}

function args(stdout: Buffer): string[] {
  return stdout.toString('utf8').split('\0').slice(0, -1);
}

// 150 shell processes per shell: the bound is generous so a loaded machine is slow, not red
describe.each(shells)('quoteArgv through %s -c', { timeout: 120_000 }, (shell) => {
  it('gives back exactly the arguments it was given', () => {
    fc.assert(
      fc.property(fc.array(arg, { minLength: 1, maxLength: 5 }), (argv) => {
        expect(args(run(shell, quoteArgv(['printf', '%s\\000', ...argv])))).toEqual(argv);
      }),
      { numRuns: 150 },
    );
  });
});
