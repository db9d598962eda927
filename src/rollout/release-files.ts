import { readFile } from 'node:fs/promises';
import type { Config } from '../config/types.js';
import { ConfigError } from '../errors.js';
import { releaseFile, sha256, type ReleaseFile } from '../host/release-files.js';

/**
 * What every host gets with the release, read once before preflight: the
 * compose file (runtime.kind compose) as `compose.yml`, byte for byte. An
 * unreadable file is a config error (exit 2) before any host is touched.
 */
export async function readReleaseFiles(config: Config): Promise<ReleaseFile[]> {
  const { runtime } = config;
  if (runtime.kind !== 'compose') return [];
  const problem = (message: string) => new ConfigError([{ path: 'runtime.compose_file', message }]);
  const bytes = await readFile(runtime.composeFile).catch((error: unknown) => {
    const why = (error as NodeJS.ErrnoException).code ?? String(error);
    throw problem(`cannot read ${runtime.composeFile} (${why})`);
  });
  const file = releaseFile('compose.yml', bytes.toString('utf8'));
  // sent as JSON text: only bytes that survive UTF-8 arrive byte for byte
  if (file.sha256 !== sha256(bytes)) throw problem(`${runtime.composeFile} is not UTF-8 text`);
  return [file];
}
