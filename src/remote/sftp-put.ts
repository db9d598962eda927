import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { messageOf } from '../errors.js';
import type { FileOwner } from './transport.js';

type Callback<T> = (error: Error | null | undefined, value: T) => void;

function call<T = void>(start: (callback: Callback<T>) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    try {
      start((error, value) => (error ? reject(error) : resolve(value)));
    } catch (error) {
      // ssh2 throws synchronously for an extension the server does not offer
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/**
 * Writes `content` to `path` so that a reader sees the old file or the whole
 * new one, never a prefix: a temp name in the same directory (same filesystem,
 * so rename is atomic), flushed, chmod-ed (the open mode passes through the
 * remote umask), given `owner` if asked (only root may give a file away),
 * then renamed over the target.
 */
export async function sftpPut(
  sftp: SFTPWrapper,
  path: string,
  content: string | Uint8Array,
  mode: number,
  owner?: FileOwner,
): Promise<void> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
  const temp = posix.join(
    posix.dirname(path),
    `.${posix.basename(path)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const handle = await call<Buffer>((cb) => sftp.open(temp, 'wx', { mode }, cb));
    try {
      if (bytes.length > 0) await call((cb) => sftp.write(handle, bytes, 0, bytes.length, 0, cb));
      await call((cb) => sftp.fchmod(handle, mode, cb));
      if (owner) await chown(sftp, handle, owner);
      await call((cb) => sftp.ext_openssh_fsync(handle, cb)).catch(() => undefined);
    } finally {
      await call((cb) => sftp.close(handle, cb));
    }
    await renameOver(sftp, temp, path);
  } catch (error) {
    await call((cb) => sftp.unlink(temp, cb)).catch(() => undefined);
    throw error;
  }
}

async function chown(sftp: SFTPWrapper, handle: Buffer, { uid, gid }: FileOwner): Promise<void> {
  try {
    await call((cb) => sftp.fchown(handle, uid, gid, cb));
  } catch (error) {
    throw new Error(
      `cannot keep its owner ${uid}:${gid} (${messageOf(error)}): only root can give a file away, so log in as root or as its owner`,
      { cause: error },
    );
  }
}

/**
 * posix-rename@openssh.com replaces the target atomically; plain SFTP rename
 * refuses an existing target, so without the extension the old file goes
 * first and a reader may briefly find none (never a partial one).
 */
async function renameOver(sftp: SFTPWrapper, from: string, to: string): Promise<void> {
  try {
    await call((cb) => sftp.ext_openssh_rename(from, to, cb));
    return;
  } catch (error) {
    if (!/does not support/i.test(messageOf(error))) throw error;
  }
  await call((cb) => sftp.unlink(to, cb)).catch(() => undefined);
  await call((cb) => sftp.rename(from, to, cb));
}
