import { access, readFile } from 'node:fs/promises';
import type { Config } from '../config/types.js';
import { ConfigError } from '../errors.js';
import { releaseFile, sha256, type ReleaseFile } from '../host/release-files.js';
import { composeEnvFiles } from './compose-env-files.js';

/**
 * What every host gets with the release, read once before preflight: the
 * compose file (runtime.kind compose) as `compose.yml`, byte for byte, and
 * the `env_file:` files beside it (compose-env-files.ts). An unreadable file
 * is a config error (exit 2) before any host is touched.
 */
export async function readReleaseFiles(config: Config): Promise<ReleaseFile[]> {
  const { runtime } = config;
  if (runtime.kind !== 'compose') return [];
  const problem = (message: string) => new ConfigError([{ path: 'runtime.compose_file', message }]);
  const compose = await readText(runtime.composeFile, 'compose.yml', problem);
  const env = composeEnvFiles(runtime.composeFile, compose.content);
  if (env.problems.length > 0)
    throw new ConfigError(
      env.problems.map((message) => ({ path: 'runtime.compose_file', message })),
    );
  const files = [compose];
  for (const f of env.files) {
    if (!f.required && !(await exists(f.local))) continue;
    files.push(await readText(f.local, f.name, problem));
  }
  return files;
}

async function readText(
  file: string,
  name: string,
  problem: (message: string) => ConfigError,
): Promise<ReleaseFile> {
  const bytes = await readFile(file).catch((error: unknown) => {
    const why = (error as NodeJS.ErrnoException).code ?? String(error);
    throw problem(`cannot read ${file} (${why})`);
  });
  const read = releaseFile(name, bytes.toString('utf8'));
  // sent as JSON text: only bytes that survive UTF-8 arrive byte for byte
  if (read.sha256 !== sha256(bytes)) throw problem(`${file} is not UTF-8 text`);
  return read;
}

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );
