import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import { artifactSha256 } from '../../../src/host/artifact.js';
import { composeSha256, readOwnFile } from '../../../src/host/release-files.js';
import { publishRelease } from '../../../src/host/releases.js';
import { scratchDir } from '../../support/scratch.js';

/**
 * An artifact (or anything that can write a release) may put a FIFO or a
 * link under one of handoff's own names. Reading them must neither hang (a
 * prune holds the host lock while it reads) nor follow the link.
 */
let root: string;
let dir: string;

beforeEach(async () => {
  root = await scratchDir('handoff-own-files-');
  dir = path.join(root, 'releases', 'r1');
  await mkdir(dir, { recursive: true });
});

describe("handoff's own files in a release", () => {
  it('refuses a FIFO at once, without waiting for a writer', async () => {
    await execa('mkfifo', [path.join(dir, 'compose.yml')]);
    await expect(readOwnFile(path.join(dir, 'compose.yml'))).rejects.toThrow(
      /compose\.yml is not a regular file, not one handoff wrote; remove it$/,
    );
    expect(await composeSha256(root, 'r1')).toBe(null);
  });

  it('refuses a symlink without following it (.env -> /dev/zero)', async () => {
    await symlink('/dev/zero', path.join(dir, '.env'));
    await expect(readOwnFile(path.join(dir, '.env'))).rejects.toThrow(/\.env is a symlink/);
    await symlink('/etc/hostname', path.join(dir, '.artifact-sha256'));
    expect(await artifactSha256(root, 'r1')).toBe(null);
  });

  it('reads a regular file, and a missing one as undefined', async () => {
    await writeFile(path.join(dir, 'compose.yml'), 'services: {}\n');
    expect((await readOwnFile(path.join(dir, 'compose.yml')))?.toString()).toBe('services: {}\n');
    expect(await readOwnFile(path.join(dir, 'nope'))).toBe(undefined);
  });

  it('publish replaces a FIFO and a link under its names with its own files', async () => {
    await execa('mkfifo', [path.join(dir, 'compose.yml')]);
    await symlink('/dev/zero', path.join(dir, '.env'));
    const r = await publishRelease(root, 'r1', {
      'compose.yml': 'services: {}\n',
      '.env': 'RELEASE=r1\n',
    });
    expect(r).toBe('published');
    expect(await readFile(path.join(dir, 'compose.yml'), 'utf8')).toBe('services: {}\n');
    expect(await readFile(path.join(dir, '.env'), 'utf8')).toBe('RELEASE=r1\n');
  });
});
