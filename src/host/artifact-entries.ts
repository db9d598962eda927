import type { Dirent } from 'node:fs';
import { readdir, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * What an extracted artifact may hold: regular files, directories and
 * symlinks that stay inside the release. Extraction filters no entry type,
 * and as root tar makes device nodes (`brw-r--r-- disk 8,0`) and FIFOs; a
 * FIFO or a link to /dev/zero under a name something reads hangs or floods
 * that reader. Returns the first entry that is none of these, as
 * `<path>: <why>`, or undefined.
 */
export async function strayEntry(dir: string): Promise<string | undefined> {
  const top = await realpath(dir);
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    const full = path.join(entry.parentPath, entry.name);
    const rel = path.relative(dir, full);
    if (entry.isFile() || entry.isDirectory()) continue;
    if (!entry.isSymbolicLink()) return `${rel}: ${kindOf(entry)}`;
    const why = await linkProblem(full, top);
    if (why) return `${rel}: ${why}`;
  }
  return undefined;
}

function kindOf(entry: Dirent): string {
  if (entry.isBlockDevice()) return 'a block device';
  if (entry.isCharacterDevice()) return 'a character device';
  if (entry.isFIFO()) return 'a FIFO';
  if (entry.isSocket()) return 'a socket';
  return 'not a file, directory or symlink';
}

/**
 * A link that resolves must resolve inside; one that does not (a build's
 * dangling link) must be relative and free of `..`, so no chain of links
 * inside can carry it out once its target appears.
 */
async function linkProblem(link: string, top: string): Promise<string | undefined> {
  const resolved = await realpath(link).catch(() => undefined);
  if (resolved !== undefined)
    return resolved === top || resolved.startsWith(`${top}/`)
      ? undefined
      : 'a symlink pointing outside the release';
  const target = await readlink(link);
  if (path.isAbsolute(target) || target.split('/').includes('..'))
    return 'a dangling symlink that may point outside the release';
  return undefined;
}
