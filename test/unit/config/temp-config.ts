import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { loadConfig, type LoadOptions } from '../../../src/config/load.js';
import { scratchDir } from '../../support/scratch.js';

/** Real files in a fresh temp dir per test, removed afterwards. */
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

export async function tempDir(): Promise<string> {
  const dir = await scratchDir('handoff-config-');
  dirs.push(dir);
  return dir;
}

export async function writeConfig(text: string, name = 'deploy.yml'): Promise<string> {
  const file = path.join(await tempDir(), name);
  await writeFile(file, text);
  return file;
}

/** The ConfigError's lines for `text`, with the temp file's path written as `FILE`. */
export async function problemsOf(text: string, options: LoadOptions = {}): Promise<string[]> {
  const file = await writeConfig(text);
  const error = await loadConfig(file, { env: {}, ...options }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message.split('\n').map((line) => line.replaceAll(file, 'FILE'));
}

/** A small valid deploy.yml, one key per line so tests can point at lines. */
export const minimal = `service: api
ssh:
  user: deploy
hosts:
  - { name: web-1, address: 10.0.0.1 }
  - { name: web-2, address: 10.0.0.2 }
balancer:
  kind: static
  interval: 5s
  timeout: 2s
  unhealthy_threshold: 2
  healthy_threshold: 2
runtime:
  kind: compose
  compose_file: compose.yml
services:
  - name: web
    check: { http: "http://127.0.0.1:8080/health" }
`;
