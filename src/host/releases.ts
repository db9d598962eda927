import { lstat, mkdir, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OperationError, UsageError } from '../errors.js';
import { writeFileAtomic } from './atomic.js';
import { currentLink, isMissing, releaseDir } from './layout.js';
import { readOwnFile } from './release-files.js';

const FILE_NAME = /^[A-Za-z0-9._-]{1,128}$/;

export function previousLink(root: string): string {
  return path.join(root, 'previous');
}

async function readRelease(link: string): Promise<string | null> {
  try {
    return path.basename(await readlink(link));
  } catch (error) {
    if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'EINVAL') return null;
    throw error;
  }
}

export function readPreviousRelease(root: string): Promise<string | null> {
  return readRelease(previousLink(root));
}

export function readLiveRelease(root: string): Promise<string | null> {
  return readRelease(currentLink(root));
}

export async function listReleases(root: string): Promise<string[]> {
  try {
    const entries = await readdir(path.join(root, 'releases'), { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

/**
 * Publish a release: a new `releases/<id>` is written into a hidden temp
 * directory and renamed into place, so it is either absent or complete. A
 * directory that already exists (an artifact step delivered the build there)
 * keeps its other files and gets ours written atomically one by one. Changing
 * a file of the live release is refused: a rollback must find exactly what ran.
 */
export async function publishRelease(
  root: string,
  release: string,
  files: Readonly<Record<string, string>>,
  /** per file; 0640 otherwise (`.env`, which may hold secrets: 0600) */
  modes: Readonly<Record<string, number>> = {},
): Promise<'published' | 'unchanged'> {
  const mode = (name: string): number => modes[name] ?? 0o640;
  for (const name of Object.keys(files)) {
    if (!FILE_NAME.test(name))
      throw new UsageError(`publish: file name ${JSON.stringify(name)} is not a plain file name`);
  }
  const dir = releaseDir(root, release);
  const existing = await readFiles(dir, Object.keys(files));
  if (!existing) {
    const tmp = path.join(root, 'releases', `.${release}.tmp-${process.pid}`);
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp, { recursive: true });
    for (const [name, content] of Object.entries(files))
      await writeFile(path.join(tmp, name), content, { mode: mode(name) });
    await rename(tmp, dir);
    return 'published';
  }
  const changed = Object.entries(files).filter(([name, content]) => existing[name] !== content);
  if (changed.length === 0) return 'unchanged';
  if ((await readLiveRelease(root)) === release) {
    throw new OperationError(
      `release ${release} is live on this host with a different ${changed.map(([n]) => n).join(', ')}; publish under a new release id`,
    );
  }
  for (const [name, content] of changed)
    await writeFileAtomic(path.join(dir, name), content, { mode: mode(name) });
  return 'published';
}

/** The named files of an existing release directory (undefined: no directory). */
async function readFiles(
  dir: string,
  names: readonly string[],
): Promise<Record<string, string | undefined> | undefined> {
  const isDir = await lstat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) return undefined;
  const out: Record<string, string | undefined> = {};
  // not a regular file of ours (an artifact's FIFO or link under that name): replaced
  for (const name of names)
    out[name] = (await readOwnFile(path.join(dir, name)).catch(() => undefined))?.toString('utf8');
  return out;
}

/** Point a link at `releases/<id>` atomically: a temp symlink renamed over the old one. */
async function pointAt(link: string, release: string): Promise<void> {
  const tmp = `${link}.tmp-${process.pid}`;
  await rm(tmp, { force: true });
  await symlink(path.join('releases', release), tmp);
  await rename(tmp, link);
}

/** `current -> releases/<id>`, remembering what it pointed at as `previous`. */
export async function switchRelease(
  root: string,
  release: string,
): Promise<{ previous: string | null; current: string }> {
  const target = releaseDir(root, release);
  const isDir = await lstat(target).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir)
    throw new OperationError(
      `release ${release} is not published on this host (${target}); the prepare step publishes it`,
    );
  const live = await readLiveRelease(root);
  // nothing changes: what was live before this switch is this release itself
  if (live === release) return { previous: live, current: release };
  if (live) await pointAt(previousLink(root), live);
  await pointAt(currentLink(root), release);
  return { previous: live, current: release };
}
