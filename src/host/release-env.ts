import { UsageError } from '../errors.js';
import { envValueProblem } from '../config/env-value.js';

/**
 * The release's `.env`, one `NAME='value'` per line. Single quotes are read the
 * same way by `sh` (`set -a; . ./.env`) and by compose (`env_file:`, the
 * project's `.env`): the value is literal, `$`, `\` and `"` included. The one
 * thing neither can carry inside them is a single quote, and a line break
 * would end the line, so such values are refused before anything is written.
 */

export { envValueProblem };

export type EnvVars = Readonly<Record<string, string>>;

/**
 * `.env` text: handoff's own variables first, bare where they can be (a release
 * id and numbers need no quotes, and the `.env` of releases written before
 * stays the same),
 * then the operator's, quoted, in the order given.
 */
export function renderEnv(own: EnvVars, vars: EnvVars): string {
  // a path from deploy.yml (a heartbeat's marks dir) may hold a space or a `$`: quoted then
  const lines = Object.entries(own).map(([name, value]) =>
    BARE.test(value) ? `${name}=${value}` : quoted(name, value),
  );
  for (const [name, value] of Object.entries(vars)) {
    if (name in own) throw new UsageError(`env ${name}: set by handoff itself; use another name`);
    lines.push(quoted(name, value));
  }
  return `${lines.join('\n')}\n`;
}

const BARE = /^[A-Za-z0-9_./:@%+,-]*$/;

function quoted(name: string, value: string): string {
  const problem = envValueProblem(value);
  if (problem) throw new UsageError(`env ${name}: ${problem}`);
  return `${name}='${value}'`;
}

const LINE = /^([A-Za-z_][A-Za-z0-9_]*)=(?:'([^']*)'|([^'\s]*))$/;

/** Reads back what renderEnv wrote (and the unquoted lines of older releases). */
export function parseEnv(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (m?.[1]) vars[m[1]] = m[2] ?? m[3] ?? '';
  }
  return vars;
}
