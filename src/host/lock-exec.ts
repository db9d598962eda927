import path from 'node:path';
import type { Clock } from '../clock.js';
import { OperationError, UsageError, messageOf } from '../errors.js';
import { runProcess } from '../process/run.js';
import { acquireHostLock, type LockRetries } from './lock.js';

export interface LockExecOptions {
  /** shown to whoever is refused; defaults to the program's name (its arguments may hold secrets) */
  readonly message?: string;
  readonly retries?: LockRetries;
  readonly clock?: Clock;
  /**
   * Aborting forwards a signal to the command (the abort reason when it is a
   * signal name, else SIGTERM); the lock is kept until the command has exited.
   */
  readonly signal?: AbortSignal;
}

/**
 * `deploy lock exec -- CMD…`: run CMD with the terminal's stdio while holding
 * the host lock, so a host's own setup scripts never race a deploy or the
 * watchdog. Resolves with CMD's exit code (128 + n when signal n ended it).
 */
export async function execUnderLock(
  lockPath: string,
  argv: readonly string[],
  options: LockExecOptions = {},
): Promise<number> {
  const [file] = argv;
  if (file === undefined)
    throw new UsageError(
      "nothing to run: write the command after '--', as in 'deploy lock exec -- ./setup.sh'",
    );
  const lock = await acquireHostLock(lockPath, {
    what: 'lock exec',
    message: options.message ?? path.basename(file),
    retries: options.retries ?? 0,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  // losing the lock means someone else may act on this host now: stop the command
  const stop = new AbortController();
  const forward = (): void => stop.abort(options.signal?.reason);
  const onLost = (): void => stop.abort('SIGTERM');
  options.signal?.addEventListener('abort', forward, { once: true });
  lock.signal.addEventListener('abort', onLost, { once: true });
  try {
    // on the terminal, in its process group: a background group could not read it
    const result = await runProcess(argv, {
      env: process.env,
      output: 'inherit',
      group: false,
      signal: stop.signal,
    });
    if (lock.signal.aborted) {
      throw new OperationError(`${messageOf(lock.signal.reason)}; stopped ${path.basename(file)}`);
    }
    if (result.started) return result.code;
    const why = result.notFound ? 'not found (is it on PATH?)' : result.why;
    throw new UsageError(`cannot run ${file}: ${why}`);
  } finally {
    options.signal?.removeEventListener('abort', forward);
    lock.signal.removeEventListener('abort', onLost);
    await lock.release();
  }
}
