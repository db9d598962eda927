import { OperationError } from '../../errors.js';
import type { RemoteProcess } from '../../remote/transport.js';

// a few seconds of someone else's edit: read, rewrite, nginx -t, reload
const LOCK_WAIT_SECONDS = 10;

/**
 * `fn` while `flock` (util-linux) holds FILE.flock where nginx runs: one
 * name and one mechanism for a handoff on the balancer host and one over SSH,
 * so the two exclude each other. The holder is `flock … cat`: cat echoes a
 * line only once flock holds the lock, and its end (stdin closed, or the
 * holder gone with a dropped connection or a killed deploy) releases it, so
 * the lock never goes stale.
 */
export async function withFileLock<T>(
  spawn: (argv: readonly string[]) => RemoteProcess,
  file: string,
  where: string,
  fn: () => Promise<T>,
): Promise<T> {
  const lockFile = `${file}.flock`;
  const holder = spawn(['flock', '-w', String(LOCK_WAIT_SECONDS), '--', lockFile, 'cat']);
  holder.write('held\n');
  const held = await firstLineOf(holder.lines);
  if (held !== 'held') {
    holder.kill();
    const code = await holder.exited;
    throw new OperationError(
      code === 1
        ? `another edit of ${file} on ${where} holds ${lockFile}; try again`
        : `cannot lock ${lockFile} on ${where} (flock exited ${code}): flock (util-linux) must be installed and the user needs write access to the file's directory`,
    );
  }
  try {
    return await fn();
  } finally {
    holder.end();
    await holder.exited;
  }
}

/** the next line, leaving the stream open (a for-await's return would end it) */
async function firstLineOf(lines: AsyncIterable<string>): Promise<string | undefined> {
  const next = await lines[Symbol.asyncIterator]().next();
  return next.done ? undefined : next.value;
}
