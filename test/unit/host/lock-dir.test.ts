import { chmod, chown, mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlockedError } from '../../../src/errors.js';
import { acquireHostLock } from '../../../src/host/lock.js';
import { tempDir } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

const take = (lock: string) => acquireHostLock(lock, { what: 'watchdog' });

describe('the host lock’s directory', () => {
  it('is created 0755 whatever the umask, and the lock taken in it', async () => {
    const old = process.umask(0);
    try {
      const lock = await take(path.join(dir, 'run', 'handoff', 'api.lock'));
      await lock.release();
    } finally {
      process.umask(old);
    }
    expect((await stat(path.join(dir, 'run', 'handoff'))).mode & 0o777).toBe(0o755);
    expect((await stat(path.join(dir, 'run'))).mode & 0o777).toBe(0o755);
  });

  it('is refused when others can write it, as /run/lock', async () => {
    const shared = path.join(dir, 'lock');
    await mkdir(shared);
    await chmod(shared, 0o1777);
    await expect(take(path.join(shared, 'api'))).rejects.toThrow(
      new RegExp(`${shared} is writable by others \\(mode 1777\\); set host.lock`),
    );
    expect(await readdir(shared)).toEqual([]);
  });

  it('is refused when a directory above it can be renamed by others', async () => {
    const open = path.join(dir, 'open');
    await mkdir(path.join(open, 'handoff'), { recursive: true });
    await chmod(open, 0o777);
    await expect(take(path.join(open, 'handoff', 'api'))).rejects.toThrow(BlockedError);
  });

  it.runIf(process.geteuid?.() === 0)('is refused when another user owns it', async () => {
    const theirs = path.join(dir, 'theirs');
    await mkdir(theirs, { mode: 0o755 });
    await chown(theirs, 65534, 65534);
    await expect(take(path.join(theirs, 'api'))).rejects.toThrow(
      /is owned by uid 65534, neither root nor this user/,
    );
  });

  it('refuses a lock file that is a symlink instead of creating its target', async () => {
    const target = path.join(dir, 'elsewhere', 'planted');
    await mkdir(path.dirname(target));
    const lock = path.join(dir, 'handoff', 'api');
    await mkdir(path.dirname(lock));
    await symlink(target, lock);
    await expect(take(lock)).rejects.toThrow(/api is a symbolic link; remove it/);
    expect(await readdir(path.dirname(target))).toEqual([]);
  });

  it('takes a lock file that already exists as a plain file', async () => {
    const lock = path.join(dir, 'api.lock');
    await writeFile(lock, '');
    const held = await take(lock);
    expect(held.path).toBe(lock);
    await held.release();
  });
});
