import { chmod, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import lockfile from 'proper-lockfile';
import { OperationError, messageOf } from '../../errors.js';
import type { ExecResult } from '../../remote/transport.js';

/**
 * Where nginx runs, as the adapter needs it: read a file, replace one
 * atomically, run an argv, and hold a lock over one edit. This machine
 * (`localNginxHost`); a balancer host over SSH provides the same.
 */
export interface NginxHost {
  /** for messages: `this machine`, or the balancer's SSH host */
  readonly where: string;
  read(file: string): Promise<string>;
  /** temp file in the same directory, the original's mode, then rename */
  write(file: string, text: string): Promise<void>;
  run(argv: readonly string[]): Promise<ExecResult>;
  /** `fn` while holding `file`'s lock: an edit by anyone else waits, or this one fails */
  locked<T>(file: string, fn: () => Promise<T>): Promise<T>;
  /** the SSH connection, when there is one */
  close(): Promise<void>;
}

// the lock lives a few seconds (read, rewrite, nginx -t, reload); a crashed holder's goes stale
const lockOptions = {
  realpath: false,
  stale: 10_000,
  retries: { retries: 20, minTimeout: 100, maxTimeout: 500 },
};

export const localNginxHost: NginxHost = {
  where: 'this machine',
  async read(file) {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      throw new OperationError(`cannot read nginx file ${file}: ${code(error)}`);
    }
  },
  async write(file, text) {
    const mode = (await stat(file)).mode & 0o7777;
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.handoff-${process.pid}`);
    await writeFile(temp, text, { mode });
    await chmod(temp, mode);
    await rename(temp, file);
  },
  async run(argv) {
    const [command = '', ...args] = argv;
    const r = await execa(command, args, { reject: false, timeout: 30_000 });
    return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  },
  async locked(file, fn) {
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(file, lockOptions);
    } catch (error) {
      throw new OperationError(
        `another edit of ${file} holds its lock (${code(error)}); try again`,
      );
    }
    try {
      return await fn();
    } finally {
      await release().catch(() => undefined);
    }
  },
  close: () => Promise.resolve(),
};

function code(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? messageOf(error);
}
