import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { OperationError, messageOf } from '../errors.js';

export interface AtomicWriteOptions {
  /** file mode, applied explicitly so the umask cannot loosen or tighten it */
  readonly mode?: number;
}

/**
 * Write a file so that a reader sees the old content or the new one, never half
 * of either: a temp file in the same directory (rename is only atomic within a
 * file system), fsync before the rename (or a crash can leave the new name
 * pointing at an empty file), then fsync the directory so the rename survives.
 * The directory is created if missing: host.state lives on tmpfs and is gone
 * after every reboot.
 */
export async function writeFileAtomic(
  file: string,
  content: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${tempSuffix()}.tmp`);
  let handle: FileHandle | undefined;
  try {
    await mkdir(dir, { recursive: true });
    handle = await open(temp, 'wx', options.mode ?? 0o644);
    if (options.mode !== undefined) await handle.chmod(options.mode);
    await handle.writeFile(content);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, file);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw new OperationError(`cannot write ${file}: ${describe(error)}`, { cause: error });
  }
  await syncDir(dir);
}

/**
 * Unpredictability is not needed (the temp file is opened with `wx`, which never
 * follows or replaces anything), only that writers of one process differ; and
 * node:crypto, for randomBytes, was a sixth of every watchdog tick's CPU.
 */
function tempSuffix(): string {
  return Math.floor(Math.random() * 2 ** 48)
    .toString(16)
    .padStart(12, '0');
}

async function syncDir(dir: string): Promise<void> {
  // best effort: some file systems refuse fsync on a directory, and the data is already safe
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    /* the rename itself already happened */
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

function describe(error: unknown): string {
  return messageOf(error);
}
