import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { sha256 } from '../../../src/host/release-files.js';
import { artifactPath, readArtifact } from '../../../src/rollout/artifact.js';
import { limiter } from '../../../src/rollout/ship.js';

const tmp = () => mkdtemp(path.join(tmpdir(), 'handoff-read-artifact-'));

describe('artifactPath', () => {
  it('puts the release id wherever {release} stands', () => {
    expect(artifactPath('/b/{release}/app-{release}.tgz', 'r7')).toBe('/b/r7/app-r7.tgz');
    expect(artifactPath('/b/app.tgz', 'r7')).toBe('/b/app.tgz');
  });
});

describe('readArtifact', () => {
  it('hashes a tarball as it is', async () => {
    const file = path.join(await tmp(), 'app.tar.gz');
    await writeFile(file, 'not really gzip, the host finds out');
    const a = await readArtifact(file);
    expect(a).toMatchObject({ path: file, sha256: sha256(await readFile(file)), bytes: 35 });
  });

  it('packs a directory to the same bytes twice, so an unchanged build is skipped', async () => {
    const dir = await tmp();
    await mkdir(path.join(dir, 'lib'));
    await writeFile(path.join(dir, 'app.mjs'), 'a');
    await writeFile(path.join(dir, 'lib', 'b.mjs'), 'b');
    const one = await readArtifact(dir);
    const two = await readArtifact(dir);
    expect(one.sha256).toBe(two.sha256);
    expect(one.path).not.toBe(dir);
    await writeFile(path.join(dir, 'app.mjs'), 'changed');
    expect((await readArtifact(dir)).sha256).not.toBe(one.sha256);
    await Promise.all([one.cleanup(), two.cleanup()]);
  });

  it('refuses a missing path or another extension, naming the flag', async () => {
    const dir = await tmp();
    await expect(readArtifact(path.join(dir, 'nope.tgz'))).rejects.toThrow(
      /^--artifact .*nope\.tgz: no such file or directory$/,
    );
    const zip = path.join(dir, 'app.zip');
    await writeFile(zip, 'PK');
    await expect(readArtifact(zip, 'rollout.artifact')).rejects.toThrow(UsageError);
    await expect(readArtifact(zip, 'rollout.artifact')).rejects.toThrow(
      /^rollout.artifact .*app\.zip: expected a \.tar\.gz or \.tgz/,
    );
  });
});

describe('limiter', () => {
  it('runs no more than the limit at once, the rest in order as slots free', async () => {
    const slot = limiter(2);
    const started: number[] = [];
    const finish: (() => void)[] = [];
    const jobs = Array.from({ length: 5 }, (_, i) =>
      slot(async () => {
        started.push(i);
        await new Promise<void>((resolve) => finish.push(resolve));
      }),
    );
    const tick = () => new Promise((r) => setImmediate(r));
    await tick();
    expect(started).toEqual([0, 1]);
    finish.shift()?.();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    while (finish.length > 0) {
      finish.shift()?.();
      await tick();
    }
    await Promise.all(jobs);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });
});
