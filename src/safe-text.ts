/**
 * Text that came from a file, a flag or a remote host, made safe to print.
 * A key or value can carry an ESC sequence (it would rewrite the operator's
 * terminal) or a URL with a password (it would end up in CI logs); both are
 * defused in the few places that write: errors (cli/main.ts, ConfigError's
 * lines) and the output (cli/output.ts).
 */

// C0 and C1 control characters and DEL; a line break is the caller's to split on
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\u001b` for an ESC, `\n` for a newline (JSON's spelling; JSON leaves C1 controls raw). */
export function escapeControl(text: string): string {
  return text.replace(
    CONTROL,
    (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

// scheme://user:password@ — up to the last @ of the authority, as a URL parser reads it
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*):[^\s/?#]*@/gi;

/** `http://user:secret@host/` → `http://user:***@host/`, anywhere in the text. */
export function maskUrlPasswords(text: string): string {
  return text.replace(URL_PASSWORD, '$1:***@');
}

/** One printable line per line of `text`: controls escaped, passwords masked. */
export function printable(text: string): string {
  return text
    .split('\n')
    .map((line) => escapeControl(maskUrlPasswords(line)))
    .join('\n');
}
