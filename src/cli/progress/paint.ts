import { localeIsUtf8, type Style } from './style.js';

const ASCII: Readonly<Record<string, string>> = {
  '✓': 'ok',
  '✗': 'FAIL',
  '—': '-',
  '–': '-',
  '·': '|',
  '…': '...',
  '→': '->',
  '≥': '>=',
  '≤': '<=',
  '×': 'x',
  '−': '-',
  '█': '#',
};

/** The widest of a line's leading marks spelt out (`FAIL`): the column they all take under LANG=C. */
const MARK_COLUMN = 4;

/**
 * A mark that opens a line (`✓ drain-before-stop …`, `! keep-alive …`) is a
 * column: spelt out, `ok`, `FAIL` and `!` are padded to one width so what
 * follows them still lines up.
 */
function padLeadingMarks(text: string): string {
  return text.replace(
    // once: a mark already padded is followed by a second space
    /^([✓✗!]) (?=\S)/gmu,
    (_, mark: string) => `${mark}${' '.repeat(MARK_COLUMN - (ASCII[mark] ?? mark).length)} `,
  );
}

/** What a terminal without UTF-8 can show: known symbols spelt out, anything else `?`. */
export function toAscii(text: string): string {
  // eslint-disable-next-line no-control-regex
  return padLeadingMarks(text).replace(/[^\u0000-\u007f]/gu, (c) => ASCII[c] ?? '?');
}

/**
 * A human line as the locale can show it: as written under UTF-8 (or no
 * locale), ASCII stand-ins under LANG=C — what every command's plain text
 * and its last error line go through, as the rollout's screen does (decorate).
 */
export function forLocale(
  text: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  return localeIsUtf8(env) ? text : toAscii(text);
}

const SGR = { green: 32, red: 31, yellow: 33 } as const;
export type Tone = keyof typeof SGR;

export function paint(style: Style, tone: Tone, text: string): string {
  return style.color ? `\u001b[${SGR[tone]}m${text}\u001b[39m` : text;
}

/** A printable line as this terminal shows it: ✓ in green, ✗ in red, ASCII under LANG=C. */
export function decorate(style: Style, line: string): string {
  const marked = (style.unicode ? line : padLeadingMarks(line)).replace(/[✓✗]/gu, (mark) => {
    const word = style.unicode ? mark : (ASCII[mark] ?? mark);
    return paint(style, mark === '✓' ? 'green' : 'red', word);
  });
  return style.unicode ? marked : toAscii(marked);
}
