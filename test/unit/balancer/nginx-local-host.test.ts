import { chown, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { localNginxHost } from '../../../src/balancer/nginx/host.js';
import { scratchDir } from '../../support/scratch.js';

/** can another process take FILE.flock right now? (`flock -n`: exit 1 when held) */
const lockFree = async (file: string) =>
  (await execa('flock', ['-n', `${file}.flock`, 'true'], { reject: false })).exitCode === 0;

describe('nginx on this machine', () => {
  it('holds FILE.flock with flock while it edits, the lock an edit over SSH takes', async () => {
    const file = path.join(await scratchDir('nginx-lock-'), 'api.conf');
    await writeFile(file, 'upstream api {}\n');
    const during = await localNginxHost.locked(file, () => lockFree(file));
    expect(during).toBe(false);
    expect(await lockFree(file)).toBe(true);
  });

  it('releases the lock when the edit fails', async () => {
    const file = path.join(await scratchDir('nginx-lock-'), 'api.conf');
    await writeFile(file, '');
    await expect(
      localNginxHost.locked(file, () => Promise.reject(new Error('no'))),
    ).rejects.toThrow('no');
    expect(await lockFree(file)).toBe(true);
  });

  it("rewrites a file with the original's mode and owner", async () => {
    const file = path.join(await scratchDir('nginx-write-'), 'api.conf');
    await writeFile(file, 'old\n', { mode: 0o640 });
    // as root, a file someone else owns keeps that owner; otherwise the test's own
    const root = process.getuid?.() === 0;
    if (root) await chown(file, 1, 1);
    const before = await stat(file);
    await localNginxHost.write(file, 'new\n');
    const after = await stat(file);
    expect(after.mode & 0o7777).toBe(0o640);
    expect([after.uid, after.gid]).toEqual([before.uid, before.gid]);
    expect(after.ino).not.toBe(before.ino);
  });
});
