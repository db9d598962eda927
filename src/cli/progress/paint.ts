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

/** What a terminal without UTF-8 can show: known symbols spelt out, anything else `?`. */
export function toAscii(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[^\u0000-\u007f]/gu, (c) => ASCII[c] ?? '?');
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
  const marked = line.replace(/[✓✗]/gu, (mark) => {
    const word = style.unicode ? mark : (ASCII[mark] ?? mark);
    return paint(style, mark === '✓' ? 'green' : 'red', word);
  });
  return style.unicode ? marked : toAscii(marked);
}
