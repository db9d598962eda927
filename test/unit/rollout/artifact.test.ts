import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { sha256 } from '../../../src/host/release-files.js';
import { artifactPath, checkRolloutArtifact, readArtifact } from '../../../src/rollout/artifact.js';
import { artifactShipper, limiter } from '../../../src/rollout/ship.js';
import { silentLog } from '../../../src/log.js';
import type { HostAgent } from '../../../src/agent-client/host-agent.js';
import type { HostConfig } from '../../../src/config/types.js';
import { testConfig } from '../../support/config.js';
import { scratchDir } from '../../support/scratch.js';

const tmp = () => scratchDir('handoff-read-artifact-');

describe('artifactPath', () => {
  it('puts the release id wherever {release} stands', () => {
    expect(artifactPath('/b/{release}/app-{release}.tgz', 'r7')).toBe('/b/r7/app-r7.tgz');
    expect(artifactPath('/b/app.tgz', 'r7')).toBe('/b/app.tgz');
  });
});

describe('checkRolloutArtifact', () => {
  it('refuses a path that cannot be an artifact with one line, reading nothing of it', async () => {
    const dir = await tmp();
    const config = testConfig();
    await expect(checkRolloutArtifact(config, 'r1', path.join(dir, 'nope.tgz'))).rejects.toThrow(
      /^--artifact .*nope\.tgz: no such file or directory$/,
    );
    const zip = path.join(dir, 'build.zip');
    await writeFile(zip, 'PK');
    await expect(checkRolloutArtifact(config, 'r1', zip)).rejects.toThrow(UsageError);
    await writeFile(path.join(dir, 'app-r1.tgz'), 'the host finds out');
    await expect(
      checkRolloutArtifact(config, 'r1', path.join(dir, 'app-{release}.tgz')),
    ).resolves.toBeUndefined();
    // no artifact at all: nothing to check
    await expect(checkRolloutArtifact(config, 'r1', undefined)).resolves.toBeUndefined();
  });
});

describe('readArtifact', () => {
  it('hashes a tarball as it is', async () => {
    const file = path.join(await tmp(), 'app.tar.gz');
    await writeFile(file, 'not really gzip, the host finds out');
    const a = await readArtifact(file);
    expect(a).toMatchObject({ path: file, sha256: sha256(await readFile(file)), bytes: 35 });
  });

  it('reads what a gzip extracts to from its trailer, and no less than its own size', async () => {
    const dir = await tmp();
    const file = path.join(dir, 'app.tgz');
    await writeFile(file, gzipSync(Buffer.alloc(100_000, 'a')));
    const a = await readArtifact(file);
    expect(a.bytes).toBeLessThan(1000);
    expect(a.unpackedBytes).toBe(100_000);
    const notGzip = path.join(dir, 'other.tgz');
    await writeFile(notGzip, 'not really gzip, the host finds out');
    expect((await readArtifact(notGzip)).unpackedBytes).toBe(35);
  });

  it('takes no size from a trailer no deflate stream could have (a truncated gzip)', async () => {
    const dir = await tmp();
    const whole = gzipSync(Buffer.alloc(100_000, 'a'));
    const file = path.join(dir, 'cut.tgz');
    // the last four bytes of what is left claim ~4 GiB for a file of a few hundred bytes
    const cut = Buffer.concat([whole.subarray(0, 100), Buffer.from([0xff, 0xff, 0xff, 0xf0])]);
    await writeFile(file, cut);
    expect((await readArtifact(file)).unpackedBytes).toBe(cut.length);
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
    const three = await readArtifact(dir);
    expect(three.sha256).not.toBe(one.sha256);
    await Promise.all([one.cleanup(), two.cleanup(), three.cleanup()]);
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

describe('artifactShipper', () => {
  it('interrupted, starts no upload that was still waiting for its turn', async () => {
    const controller = new AbortController();
    const started: string[] = [];
    let finish: () => void = () => undefined;
    const agent = (name: string): HostAgent =>
      ({
        host: name,
        shipArtifact: () => {
          started.push(name);
          return new Promise((resolve) => {
            finish = () => resolve({ uploaded: true, bytes: 1 });
          });
        },
      }) as unknown as HostAgent;
    const artifact = { path: '/x.tgz', sha256: 'a'.repeat(64), bytes: 1 };
    const ship = artifactShipper(silentLog, artifact, 'r2', 1, controller.signal);
    const host = (name: string) => ({ name }) as HostConfig;
    const first = ship(host('web-1'), agent('web-1'));
    const second = ship(host('web-2'), agent('web-2'));
    controller.abort();
    finish();
    await expect(first).resolves.toEqual({ uploaded: true, bytes: 1 });
    await expect(second).rejects.toThrow(/web-2: interrupted before the artifact was uploaded/);
    expect(started).toEqual(['web-1']);
  });
});
