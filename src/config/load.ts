import { readFile } from 'node:fs/promises';
import { ConfigError, messageOf, UsageError, type ConfigProblem } from '../errors.js';
import { secretMask, secretValueProblem } from '../safe-text.js';
import { destinationFile, destinationProblem } from './destination.js';
import type { DestinationText } from './parse.js';
import { unsealHostConfig } from './sealed.js';
import type { Config } from './types.js';
import { withEnv, type LoadOptions } from './with-env.js';

export type { LoadOptions } from './with-env.js';

/**
 * Reads deploy.yml, or the host config that `deploy setup` publishes. With
 * `trustSeal`, a host config whose seal holds is taken as sealed (sealed.ts); everything else is
 * parsed and validated in full by parse.ts, imported only then, so a watchdog
 * tick never loads the YAML parser or the zod schemas.
 */
export async function loadConfig(file: string, options: LoadOptions = {}): Promise<Config> {
  const text = await readConfigText(file);
  const sealed =
    options.trustSeal && !options.destination ? unsealHostConfig(text, file) : undefined;
  // the host's own config: the mask skips what it cannot mask, never refuses (safe-text.ts)
  if (sealed) return maskSecrets(withEnv(sealed, options), false);
  const destination = await readDestination(file, options.destination);
  const { parseValid } = await import('./parse.js');
  return maskSecrets(withEnv(parseValid(text, file, options.env?.HOME, destination), options));
}

/**
 * deploy.yml as this command runs it (`options`' HANDOFF_* overrides) and as
 * `deploy setup` publishes it to the hosts (`plainEnv`: none of them), from
 * one read and one parse: parsing and validating is the costly part (150–300
 * ms each at 500 hosts), the overrides are a few fields on top.
 */
export async function loadConfigAndPlain(
  file: string,
  options: LoadOptions,
  plainEnv: NodeJS.ProcessEnv,
): Promise<{ readonly config: Config; readonly plain: Config }> {
  const text = await readConfigText(file);
  const destination = await readDestination(file, options.destination);
  const { parseValid } = await import('./parse.js');
  const valid = parseValid(text, file, options.env?.HOME, destination);
  return {
    config: maskSecrets(withEnv(valid, options)),
    plain: maskSecrets(withEnv(valid, { env: plainEnv })),
  };
}

async function readConfigText(file: string, hint?: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ path: '', message: unreadable(file, error, hint) }]);
  }
}

async function readDestination(
  file: string,
  name: string | undefined,
): Promise<DestinationText | undefined> {
  if (name === undefined) return undefined;
  const problem = destinationProblem(name);
  if (problem) throw new UsageError(problem);
  const source = destinationFile(file, name);
  const hint = `-d ${name} reads it beside ${file}; create it with the keys ${name} changes`;
  return { name, source, text: await readConfigText(source, hint) };
}

/**
 * `env.secret`'s values in this process's environment join the mask
 * (safe-text.ts) the moment a config names them, in every command: a
 * pre-deploy hook prints before the rollout reads its secrets, and
 * `deploy rollback` publishes nothing and never reads them at all, yet both
 * print what a hook, a service or a host's stderr said. The process
 * environment, whatever `env` the overrides came from: it is what a hook
 * and the rollout inherit. A value too short to mask is refused here, in
 * every command, before a hook or a host could print it.
 */
function maskSecrets(config: Config, refuseShort = true): Config {
  const problems: ConfigProblem[] = [];
  config.env.secret.forEach((name, i) => {
    const value = process.env[name];
    if (value === undefined) return;
    const problem = refuseShort ? secretValueProblem(name, value) : undefined;
    if (problem) problems.push({ path: `env.secret[${i}]`, message: problem });
    else secretMask.add(value);
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function unreadable(file: string, error: unknown, hint?: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return `cannot read ${file}: no such file; ${hint ?? "pass -c FILE or create one with 'deploy init'"}`;
    case 'EACCES':
    case 'EPERM':
      return `cannot read ${file}: permission denied`;
    case 'EISDIR':
      return `cannot read ${file}: it is a directory; pass -c with the config file`;
    default:
      return `cannot read ${file}: ${messageOf(error)}`;
  }
}
