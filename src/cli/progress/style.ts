/**
 * How far the terminal can be trusted: colour, UTF-8 symbols, a live region.
 * Decided once from the environment and the stream, so every line of a run
 * looks the same and tests can pin each decision.
 */
export interface TermStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface Style {
  /** ANSI colours for ✓ ✗ WARN ERROR */
  readonly color: boolean;
  /** ✓ ✗ — · …; ASCII stand-ins otherwise */
  readonly unicode: boolean;
  /** redraw one line per waiting host in place (cursor movement) */
  readonly live: boolean;
  /** GITHUB_ACTIONS=true: workflow commands, no ANSI escapes at all */
  readonly github: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The locale's charset: the first of LC_ALL, LC_CTYPE, LANG that is set decides. */
export function localeIsUtf8(env: Env): boolean {
  const locale = [env.LC_ALL, env.LC_CTYPE, env.LANG].find((v) => v !== undefined && v !== '');
  // no locale at all says nothing about the terminal: keep the symbols
  return locale === undefined || /utf-?8/i.test(locale);
}

/** Node's own order: FORCE_COLOR beats NO_COLOR, which beats TERM=dumb and the TTY check. */
function colorWanted(env: Env, tty: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return tty;
}

export function detectStyle(env: Env, stream: Pick<TermStream, 'isTTY'>): Style {
  const github = env.GITHUB_ACTIONS === 'true';
  const tty = stream.isTTY === true;
  return {
    github,
    color: !github && colorWanted(env, tty),
    unicode: localeIsUtf8(env),
    live: !github && tty && env.TERM !== 'dumb',
  };
}
