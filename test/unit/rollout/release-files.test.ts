import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { readReleaseFiles } from '../../../src/rollout/release-files.js';
import { testConfig } from '../../support/config.js';
import { tempDir } from '../host/helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

const compose = (composeFile: string) => testConfig({ runtime: { kind: 'compose', composeFile } });

describe('the files sent with a release', () => {
  it('sends the compose file as compose.yml with the sha256 of its bytes', async () => {
    const file = path.join(dir, 'docker-compose.prod.yml');
    const bytes = Buffer.from('services:\n  app:\n    image: app:${RELEASE} # ünïcode\n');
    await writeFile(file, bytes);
    expect(await readReleaseFiles(compose(file))).toEqual([
      {
        name: 'compose.yml',
        content: bytes.toString('utf8'),
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
    ]);
  });

  it('sends nothing for the command runtime', async () => {
    expect(await readReleaseFiles(testConfig({ runtime: { kind: 'command' } }))).toEqual([]);
  });

  it('is a config error naming runtime.compose_file when the file cannot be read', async () => {
    const missing = path.join(dir, 'nope.yml');
    const failure = await readReleaseFiles(compose(missing)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toBe(
      `runtime.compose_file: cannot read ${missing} (ENOENT)`,
    );
  });

  it('refuses bytes that would not arrive byte for byte as text', async () => {
    const file = path.join(dir, 'latin1.yml');
    await writeFile(file, Buffer.from([0x61, 0xe9, 0x0a]));
    await expect(readReleaseFiles(compose(file))).rejects.toThrow(/is not UTF-8 text/);
  });
});
