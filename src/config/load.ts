import { readFile } from 'node:fs/promises';
import { ConfigError, messageOf } from '../errors.js';
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
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ path: '', message: unreadable(file, error) }]);
  }
  const sealed = options.trustSeal ? unsealHostConfig(text, file) : undefined;
  if (sealed) return withEnv(sealed, options);
  const { parseConfig } = await import('./parse.js');
  return parseConfig(text, file, options);
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
      return `cannot read ${file}: ${messageOf(error)}`;
  }
}
