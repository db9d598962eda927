import { ConfigError } from '../errors.js';
import { mergedDocument } from './destination.js';
import { parseText, type ParsedDocument } from './document.js';
import { collectProblems, issueMessage } from './issues.js';
import type { LocatedProblem } from './issues.js';
import { normalize } from './normalize.js';
import { withEnv, type LoadOptions } from './with-env.js';
import { unsealHostConfig, withoutSeal } from './sealed.js';
import { checkRules } from './rules.js';
import { configSchema } from './schema.js';
import type { Config } from './types.js';

/**
 * parse → validate → rules → normalize → env overrides → freeze. Every problem
 * of the file is collected and thrown at once as a ConfigError, one line each
 * with its key path and file:line:col, so a fix-rerun loop takes one round.
 */

/** The host config `deploy setup` publishes as /etc/handoff/<service>.json (sealed.ts). */
export function loadConfigFromJson(
  text: string,
  source: string,
  options: LoadOptions = {},
): Config {
  const sealed = options.trustSeal ? unsealHostConfig(text, source) : undefined;
  return sealed ? withEnv(sealed, options) : parseConfig(text, source, options);
}

/** deploy.yml text (JSON is YAML too); `source` names it in messages and resolves relative paths. */
export function parseConfig(text: string, source: string, options: LoadOptions = {}): Config {
  return withEnv(parseValid(text, source, options.env?.HOME), options);
}

/** A destination file's text (deploy.NAME.yml), merged over deploy.yml's (destination.ts). */
export interface DestinationText {
  readonly name: string;
  readonly text: string;
  readonly source: string;
}

/** Everything but the env overrides: what a config with and without them share (load.ts). */
export function parseValid(
  text: string,
  source: string,
  home: string | undefined,
  destination?: DestinationText,
): Config {
  const doc = documentOf(text, source, destination);
  if (doc.syntaxProblems.length > 0) throw new ConfigError(doc.syntaxProblems);
  if (doc.data === null || doc.data === undefined) {
    throw new ConfigError([
      {
        path: '',
        message: `the file is empty; 'deploy init' writes a starter to fill in`,
        location: `${source}:1:1`,
      },
    ]);
  }
  // a host config whose seal did not hold: its document is validated like any deploy.yml
  const data = withoutSeal(doc.data);
  const parsed = configSchema.safeParse(data, { error: issueMessage });
  const issues = parsed.success ? [] : parsed.error.issues;
  const problems = collectProblems(issues, checkRules(data), doc);
  if (!parsed.success || problems.length > 0) throw new ConfigError(inFileOrder(problems));
  return normalize(parsed.data, { source, ...(home ? { home } : {}) });
}

function documentOf(
  text: string,
  source: string,
  destination: DestinationText | undefined,
): ParsedDocument {
  const base = parseText(text, source);
  if (!destination) return base;
  const overlay = parseText(destination.text, destination.source);
  return mergedDocument(base, overlay, text.length, destination.name);
}

function inFileOrder(problems: readonly LocatedProblem[]): LocatedProblem[] {
  const unique = new Map(problems.map((p) => [`${p.path}\n${p.message}`, p]));
  return [...unique.values()]
    .sort((a, b) => (a.offset ?? Number.MAX_SAFE_INTEGER) - (b.offset ?? Number.MAX_SAFE_INTEGER))
    .map(({ offset: _offset, ...problem }) => problem);
}
