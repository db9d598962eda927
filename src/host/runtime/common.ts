import { stat } from 'node:fs/promises';
import { OperationError } from '../../errors.js';
import { excerpt, secretMask } from '../../safe-text.js';
import { envFilePath, releaseDir } from '../layout.js';
import { parseEnv } from '../release-env.js';
import { readOwnFile } from '../release-files.js';
import type { RuntimeSettings } from './runtime.js';

export async function assertPublished(root: string, release: string): Promise<void> {
  const dir = releaseDir(root, release);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) {
    throw new OperationError(
      `release ${release} is not published at ${dir}; publish it before preparing it`,
    );
  }
}

/** The last line of a command's stderr, cut short: enough to say why, never a dump. */
export function lastLine(text: string): string {
  return excerpt(text, 200, 'last');
}

/**
 * The variables of a release's `.env` (none when it has none: a release
 * published before `env:` existed). The values of `env.secret`'s names join
 * the agent's mask (safe-text.ts), so an error quoting a command's output
 * does not carry them to the orchestrator or the watchdog's log.
 */
export async function readReleaseVars(
  settings: Pick<RuntimeSettings, 'root' | 'secretNames'>,
  release: string,
): Promise<Record<string, string>> {
  // read as handoff's own file: never through a link, never a FIFO (release-files.ts)
  const bytes = await readOwnFile(envFilePath(settings.root, release)).catch(() => undefined);
  const text = bytes?.toString('utf8') ?? '';
  const vars = parseEnv(text);
  for (const name of settings.secretNames) {
    const value = vars[name];
    if (value !== undefined) secretMask.add(value);
  }
  return vars;
}
