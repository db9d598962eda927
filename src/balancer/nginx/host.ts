import { spawn } from 'node:child_process';
import { chmod, chown, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { execa } from 'execa';
import { OperationError, messageOf } from '../../errors.js';
import type { ExecResult, RemoteProcess } from '../../remote/transport.js';
import { withFileLock } from './file-lock.js';

/**
 * Where nginx runs, as the adapter needs it: read a file, replace one
 * atomically, run an argv, and hold a lock over one edit. This machine
 * (`localNginxHost`); a balancer host over SSH provides the same.
 */
export interface NginxHost {
  /** for messages: `this machine`, or the balancer's SSH host */
  readonly where: string;
  read(file: string): Promise<string>;
  /** temp file in the same directory, the original's mode and owner, then rename */
  write(file: string, text: string): Promise<void>;
  run(argv: readonly string[]): Promise<ExecResult>;
  /** `fn` while holding `file`'s lock (file-lock.ts): an edit by anyone else waits, or this one fails */
  locked<T>(file: string, fn: () => Promise<T>): Promise<T>;
  /** the SSH connection, when there is one */
  close(): Promise<void>;
}

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
    const { mode, uid, gid } = await stat(file);
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.handoff-${process.pid}`);
    await writeFile(temp, text, { mode: mode & 0o7777 });
    await chmod(temp, mode & 0o7777);
    try {
      await chown(temp, uid, gid);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw new OperationError(
        `cannot keep ${file}'s owner ${uid}:${gid} (${code(error)}): only root can give a file away, so run as root or as its owner`,
      );
    }
    await rename(temp, file);
  },
  async run(argv) {
    const [command = '', ...args] = argv;
    const r = await execa(command, args, { reject: false, timeout: 30_000 });
    return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  },
  locked: (file, fn) => withFileLock(spawnHere, file, 'this machine', fn),
  close: () => Promise.resolve(),
};

/** a process of this machine as the lock's holder: lines of its stdout, its stdin open */
function spawnHere(argv: readonly string[]): RemoteProcess {
  const [command = '', ...args] = argv;
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = new Promise<number>((resolve) => {
    child.once('error', () => resolve(-1));
    child.once('close', (exit) => resolve(exit ?? -1));
  });
  child.stdin.on('error', () => undefined);
  return {
    lines: createInterface({ input: child.stdout }),
    write: (line) => void child.stdin.write(line),
    end: () => child.stdin.end(),
    exited,
    kill: () => void child.kill(),
  };
}

function code(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? messageOf(error);
}
