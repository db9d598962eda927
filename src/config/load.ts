import { readFile } from 'node:fs/promises';
import { ConfigError } from '../errors.js';
import { silentLog } from '../log.js';
import type { Log } from '../log.js';
import { parseText } from './document.js';
import { applyEnvOverrides } from './env.js';
import { collectProblems, issueMessage } from './issues.js';
import type { LocatedProblem } from './issues.js';
import { deepFreeze, normalize } from './normalize.js';
import { checkRules } from './rules.js';
import { configSchema } from './schema.js';
import type { Config } from './types.js';

/**
 * parse → validate → rules → normalize → env overrides → freeze. Every problem
 * of the file is collected and thrown at once as a ConfigError, one line each
 * with its key path and file:line:col, so a fix-rerun loop takes one round.
 */

export interface LoadOptions {
  /** HANDOFF_* overrides are read from here; defaults to process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** receives the `config.env` warnings */
  readonly log?: Log;
}

/** Reads deploy.yml (or the host config JSON that `deploy setup` publishes). */
export async function loadConfig(file: string, options: LoadOptions = {}): Promise<Config> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ path: '', message: unreadable(file, error) }]);
  }
  return parseConfig(text, file, options);
}

/** The host config `deploy setup` publishes as /etc/handoff/<service>.json. */
export function loadConfigFromJson(
  text: string,
  source: string,
  options: LoadOptions = {},
): Config {
  return parseConfig(text, source, options);
}

/** deploy.yml text (JSON is YAML too); `source` names it in messages and resolves relative paths. */
export function parseConfig(text: string, source: string, options: LoadOptions = {}): Config {
  const doc = parseText(text, source);
  if (doc.syntaxProblems.length > 0) throw new ConfigError(doc.syntaxProblems);
  if (doc.data === null || doc.data === undefined) {
    throw new ConfigError([
      { path: '', message: `${source} is empty; 'deploy init' writes a starter to fill in` },
    ]);
  }
  const parsed = configSchema.safeParse(doc.data, { error: issueMessage });
  const issues = parsed.success ? [] : parsed.error.issues;
  const problems = collectProblems(issues, checkRules(doc.data), doc);
  if (!parsed.success || problems.length > 0) throw new ConfigError(inFileOrder(problems));
  const home = options.env?.HOME;
  const config = normalize(parsed.data, { source, ...(home ? { home } : {}) });
  return deepFreeze(
    applyEnvOverrides(config, options.env ?? process.env, options.log ?? silentLog),
  );
}

function inFileOrder(problems: readonly LocatedProblem[]): LocatedProblem[] {
  const unique = new Map(problems.map((p) => [`${p.path}\n${p.message}`, p]));
  return [...unique.values()]
    .sort((a, b) => (a.offset ?? Number.MAX_SAFE_INTEGER) - (b.offset ?? Number.MAX_SAFE_INTEGER))
    .map(({ offset: _offset, ...problem }) => problem);
}

function unreadable(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return `cannot read ${file}: no such file; pass -c FILE or create one with 'deploy init'`;
    case 'EACCES':
    case 'EPERM':
      return `cannot read ${file}: permission denied`;
    case 'EISDIR':
      return `cannot read ${file}: it is a directory; pass -c with the config file`;
    default:
      return `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
