import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { quoteArg, quoteArgv } from '../../../src/remote/quote.js';

const nasty = [
  'plain',
  'with space',
  "it's",
  "''",
  '$(touch /tmp/pwned)',
  '`id`',
  '$HOME',
  'a\nb',
  '',
  '*',
  ';rm -rf /;',
  '"double"',
  '\\back\\slash',
  '!bang',
  '-n',
];

describe('quoteArg', () => {
  it('wraps a plain word in single quotes', () => {
    expect(quoteArg('ls')).toBe("'ls'");
  });

  it('closes, escapes and reopens the quotes around a single quote', () => {
    expect(quoteArg("it's")).toBe("'it'\\''s'");
  });

  it('renders the empty string as an empty quoted word', () => {
    expect(quoteArg('')).toBe("''");
  });

  it('leaves $, backquotes and newlines inside the quotes untouched', () => {
    expect(quoteArg('$(id)`x`\n')).toBe("'$(id)`x`\n'");
  });

  it('refuses a NUL byte, which no remote argv can carry', () => {
    expect(() => quoteArg('a\0b')).toThrow(UsageError);
  });
});

describe('quoteArgv', () => {
  it('quotes every word and joins them with spaces', () => {
    expect(quoteArgv(['ls', '-l', 'a b'])).toBe("'ls' '-l' 'a b'");
  });

  it('takes no environment, whose values a remote command line would show in ps', () => {
    expect(quoteArgv.length).toBe(1);
  });

  it('refuses an empty argv', () => {
    expect(() => quoteArgv([])).toThrow(UsageError);
  });

  it('round-trips nasty arguments exactly through a real sh -c', () => {
    const out = execFileSync('sh', ['-c', quoteArgv(['printf', '%s\\0', ...nasty])]);
    expect(out.toString('utf8').split('\0').slice(0, -1)).toEqual(nasty);
  });
});
