import { describe, expect, it } from 'vitest';
import { decorate, toAscii } from '../../../../src/cli/progress/paint.js';
import { detectStyle, localeIsUtf8 } from '../../../../src/cli/progress/style.js';

const tty = { isTTY: true };
const pipe = { isTTY: false };

describe('colour, live lines and symbols, decided from the environment', () => {
  it('colours a TTY and redraws live lines on it', () => {
    expect(detectStyle({ TERM: 'xterm' }, tty)).toMatchObject({ color: true, live: true });
  });

  it('neither colours nor redraws a pipe', () => {
    expect(detectStyle({ TERM: 'xterm' }, pipe)).toMatchObject({ color: false, live: false });
  });

  it('honours NO_COLOR on a TTY but keeps the live lines', () => {
    expect(detectStyle({ NO_COLOR: '1' }, tty)).toMatchObject({ color: false, live: true });
  });

  it('ignores an empty NO_COLOR, as the convention says', () => {
    expect(detectStyle({ NO_COLOR: '' }, tty).color).toBe(true);
  });

  it('colours a pipe with FORCE_COLOR, which beats NO_COLOR, unless FORCE_COLOR is 0', () => {
    expect(detectStyle({ FORCE_COLOR: '1', NO_COLOR: '1' }, pipe).color).toBe(true);
    expect(detectStyle({ FORCE_COLOR: '0' }, tty).color).toBe(false);
    expect(detectStyle({ FORCE_COLOR: 'false' }, tty).color).toBe(false);
  });

  it('treats TERM=dumb as neither colour nor cursor movement', () => {
    expect(detectStyle({ TERM: 'dumb' }, tty)).toMatchObject({ color: false, live: false });
  });

  it('writes no ANSI escape in GitHub Actions, even with FORCE_COLOR', () => {
    expect(detectStyle({ GITHUB_ACTIONS: 'true', FORCE_COLOR: '1' }, tty)).toEqual({
      github: true,
      color: false,
      live: false,
      unicode: true,
    });
  });

  it('reads the charset from LC_ALL, then LC_CTYPE, then LANG', () => {
    expect(localeIsUtf8({ LANG: 'C' })).toBe(false);
    expect(localeIsUtf8({ LANG: 'en_US.UTF-8' })).toBe(true);
    expect(localeIsUtf8({ LANG: 'en_US.utf8' })).toBe(true);
    expect(localeIsUtf8({ LC_ALL: 'C', LANG: 'en_US.UTF-8' })).toBe(false);
    expect(localeIsUtf8({ LC_ALL: '', LC_CTYPE: 'POSIX', LANG: 'en_US.UTF-8' })).toBe(false);
    expect(localeIsUtf8({})).toBe(true);
  });
});

describe('symbols as the terminal can show them', () => {
  it('spells the marks and punctuation out in ASCII and replaces anything else', () => {
    expect(toAscii('web-1 — lock 12ms · drain… ≥ 2 ✓ ✗ 日')).toBe(
      'web-1 - lock 12ms | drain... >= 2 ok FAIL ?',
    );
  });

  it('keeps a column of leading marks one width: ok, FAIL and ! padded alike', () => {
    expect(toAscii('✓ keep-alive  a\n✗ capacity    b\n! slow-start  c')).toBe(
      'ok   keep-alive  a\nFAIL capacity    b\n!    slow-start  c',
    );
    // a line spelt out twice (a command's text, then its screen) is padded once
    expect(toAscii(toAscii('! slow-start  c'))).toBe('!    slow-start  c');
  });

  it('colours the marks without colouring the words around them', () => {
    const style = { color: true, unicode: true, live: true, github: false };
    expect(decorate(style, 'verify ✓ 1s')).toBe('verify \u001b[32m✓\u001b[39m 1s');
    expect(decorate({ ...style, unicode: false }, '✗ web-2')).toBe(
      '\u001b[31mFAIL\u001b[39m web-2',
    );
  });
});
