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

/** One printable line per line of `text`: controls escaped, passwords and secrets masked. */
export function printable(text: string): string {
  return secretMask
    .mask(text)
    .split('\n')
    .map((line) => escapeControl(maskUrlPasswords(line)))
    .join('\n');
}

/**
 * The shortest secret value handoff takes (as GitLab's masked variables).
 * Masking a shorter one would cut `***` into ordinary words (`host` in
 * `2 host(s)`) and tell every reader the value by where the stars fall.
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * Why a secret's value cannot be masked, or undefined when it can. An empty
 * value has nothing to mask or give away (a CI secret a fork's pull request
 * may not read is empty).
 */
export function secretValueProblem(name: string, value: string): string | undefined {
  if (value === '' || value.length >= MIN_SECRET_LENGTH) return undefined;
  return `${name} is shorter than ${MIN_SECRET_LENGTH} characters, too short to mask in output (it would hide inside ordinary words and give itself away): use a longer secret, or list ${name} under env.clear if it is no secret`;
}

/**
 * The secret values (deploy.yml's `env.secret`) this process has read, masked
 * as `***` wherever text leaves it: output lines, JSON, errors, audit entries.
 * Process-wide on purpose, like a CI runner's mask list: an error printed by
 * main.ts or a host's stderr quoted in a message never passes through the
 * code that read the secret, and a value that reached no mask would be printed.
 */
export class SecretMask {
  private values: string[] = [];

  add(value: string): void {
    // too short to mask (secretValueProblem): never refused here, where the
    // agent reads an old release's .env; longest first, so a value containing
    // another is masked whole
    if (value.length < MIN_SECRET_LENGTH || this.values.includes(value)) return;
    this.values = [...this.values, value].sort((a, b) => b.length - a.length);
  }

  /** every occurrence of every value, and of its JSON-escaped form, as `***` */
  mask(text: string): string {
    let out = text;
    for (const value of this.values) {
      out = out.replaceAll(value, '***');
      const escaped = JSON.stringify(value).slice(1, -1);
      if (escaped !== value) out = out.replaceAll(escaped, '***');
    }
    return out;
  }

  /** a JSON-able value with every string (key or value) masked; numbers stay numbers */
  maskDeep<T>(value: T): T {
    if (this.values.length === 0) return value;
    return this.deep(value) as T;
  }

  private deep(value: unknown): unknown {
    if (typeof value === 'string') return this.mask(value);
    if (Array.isArray(value)) return value.map((v) => this.deep(v));
    if (typeof value === 'object' && value !== null && !(value instanceof Date))
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [this.mask(k), this.deep(v)]),
      );
    return value;
  }
}

export const secretMask = new SecretMask();

/**
 * One line of a command's output, cut to `max` characters only after every
 * secret and URL password in the whole text is masked: a cut made first
 * leaves part of a value that the mask, matching whole values, no longer
 * finds (`invalid token ghp_R3alS3cretT0ke…`). Every cut of output goes here.
 */
export function excerpt(text: string, max: number, which: 'first' | 'last' = 'first'): string {
  const lines = maskUrlPasswords(secretMask.mask(text)).trim().split('\n');
  const line = (which === 'first' ? lines[0] : lines.at(-1))?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
