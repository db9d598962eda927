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

describe("the compose file's env_file files", () => {
  it('ships each env_file beside the compose file with the release, once', async () => {
    const file = path.join(dir, 'compose.prod.yml');
    await writeFile(
      file,
      'services:\n  app:\n    env_file: app.env\n  worker:\n    env_file:\n      - app.env\n      - path: ./worker.env\n        required: false\n      - /etc/host-only.env\n      - path: optional.env\n        required: false\n',
    );
    await writeFile(path.join(dir, 'app.env'), 'A=1\n');
    await writeFile(path.join(dir, 'worker.env'), 'W=2\n');
    const files = await readReleaseFiles(compose(file));
    expect(files.map((f) => [f.name, f.content])).toEqual([
      ['compose.yml', expect.stringContaining('env_file')],
      ['app.env', 'A=1\n'],
      ['worker.env', 'W=2\n'],
    ]);
  });

  it("refuses one that is not beside the compose file, or is handoff's own .env", async () => {
    const file = path.join(dir, 'compose.yml');
    await writeFile(file, 'services:\n  app:\n    env_file: [config/app.env, ../x.env, .env]\n');
    const failure = await readReleaseFiles(compose(file)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).message.split('\n')).toEqual([
      expect.stringMatching(
        /^runtime\.compose_file: services\.app\.env_file "config\/app\.env": must be a file beside the compose file/,
      ),
      expect.stringMatching(
        /^runtime\.compose_file: services\.app\.env_file "\.\.\/x\.env": must be a file beside/,
      ),
      expect.stringMatching(
        /^runtime\.compose_file: services\.app\.env_file "\.env": handoff writes \.env itself/,
      ),
    ]);
  });

  it('names a missing env_file as a config error before any host is touched', async () => {
    const file = path.join(dir, 'compose.yml');
    await writeFile(file, 'services:\n  app:\n    env_file: gone.env\n');
    await expect(readReleaseFiles(compose(file))).rejects.toThrow(
      /cannot read .*gone\.env \(ENOENT\)/,
    );
  });
});
