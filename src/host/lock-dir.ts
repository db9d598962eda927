import { constants } from 'node:fs';
import { mkdir, open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { BlockedError, messageOf } from '../errors.js';

/**
 * Where the host lock may live. Root takes it (the watchdog, a rollout), so a
 * directory another user can write is a way in: in world-writable /run/lock a
 * local user could pre-create the lock's directory, plant a symlink that root
 * then follows to create files where it points, or hold the lock forever. The
 * lock's directory must be owned by root or by us and writable by nobody
 * else; every directory above it too, unless it is sticky (like /tmp, where
 * nobody can rename what is ours); and the lock file is opened with
 * O_NOFOLLOW, so a symlink in its place is refused, not followed.
 */

/** Creates the lock file (and missing directories, 0755) and returns its real path. */
export async function ensureLockFile(file: string): Promise<string> {
  const dir = path.dirname(file);
  try {
    // explicit: the default 0777 would leave them writable by all under umask 0
    await mkdir(dir, { recursive: true, mode: 0o755 });
  } catch (error) {
    throw cannot(file, error);
  }
  await assertSafeDir(dir, file);
  try {
    const flags =
      constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW;
    await (await open(file, flags, 0o644)).close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new BlockedError(
        `the host lock ${file} is a symbolic link; remove it (the lock file is created where host.lock says, never through a link)`,
      );
    throw cannot(file, error);
  }
  return path.join(await realpath(dir), path.basename(file));
}

async function assertSafeDir(dir: string, file: string): Promise<void> {
  const me = process.geteuid?.() ?? 0;
  let current = await realpath(dir);
  for (let first = true; ; first = false) {
    const s = await stat(current);
    const writableByOthers = (s.mode & 0o022) !== 0;
    const sticky = (s.mode & 0o1000) !== 0;
    const problem =
      s.uid !== 0 && s.uid !== me
        ? `is owned by uid ${s.uid}, neither root nor this user`
        : writableByOthers && (first || !sticky)
          ? `is writable by others (mode ${(s.mode & 0o7777).toString(8)})`
          : undefined;
    if (problem)
      throw new BlockedError(
        `the host lock ${file} is not safe: ${current} ${problem}; set host.lock in a directory only root writes, such as /run/handoff (the default)`,
      );
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

function cannot(file: string, error: unknown): BlockedError {
  return new BlockedError(
    `cannot create the host lock ${file}: ${messageOf(error)}; check host.lock and its directory's permissions`,
  );
}
