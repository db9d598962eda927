import { randomBytes } from 'node:crypto';
import { chmod, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { execa, type Result } from 'execa';
import { systemClock, type Clock } from '../clock.js';
import { OperationError, UsageError } from '../errors.js';
import { LineQueue } from './line-queue.js';
import { startDeadline, signalExitCode } from './deadline.js';
import { commandTimedOut } from './command-errors.js';
import type { ExecOptions, ExecResult, RemoteProcess, Transport } from './transport.js';

/**
 * The transport for `host: localhost`: the same contract as SSH, with no shell
 * in between (argv goes straight to execve). Where the two could differ, local
 * follows what the SSH side does: stdin is closed unless given, output is kept
 * byte for byte, and a missing program exits 127 like a remote shell's would.
 */
export class LocalTransport implements Transport {
  private readonly children = new Set<RemoteProcess>();

  constructor(
    readonly host: string = 'localhost',
    private readonly clock: Clock = systemClock,
  ) {}

  async exec(argv: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    const [file, ...args] = argv;
    if (file === undefined) throw new UsageError('cannot run an empty command (argv is empty)');
    options.signal?.throwIfAborted();
    const controller = new AbortController();
    let timedOut = false;
    const cancelDeadline = startDeadline(this.clock, options.timeoutMs, () => {
      timedOut = true;
      controller.abort();
    });
    const onAbort = (): void => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await execa(file, args, {
        input: options.stdin ?? '',
        env: options.env,
        reject: false,
        stripFinalNewline: false,
        cancelSignal: controller.signal,
      });
      if (timedOut) throw commandTimedOut(this.host, argv, options.timeoutMs ?? 0);
      options.signal?.throwIfAborted();
      return toExecResult(file, result);
    } finally {
      cancelDeadline();
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  spawn(argv: readonly string[], options: Pick<ExecOptions, 'env'> = {}): RemoteProcess {
    const [file, ...args] = argv;
    if (file === undefined) throw new UsageError('cannot run an empty command (argv is empty)');
    const child = execa(file, args, {
      env: options.env,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'ignore',
      buffer: false,
      reject: false,
    });
    // a write after the process died must not crash us with an unhandled EPIPE
    child.stdin.on('error', () => undefined);
    const exited = child.then((result) => toExecResult(file, result).code);
    const process: RemoteProcess = {
      lines: new LineQueue(child.stdout),
      write: (text) => void child.stdin.write(text),
      end: () => void child.stdin.end(),
      exited,
      kill: () => void child.kill('SIGTERM'),
    };
    this.children.add(process);
    void exited.then(() => this.children.delete(process));
    return process;
  }

  async put(file: string, content: string | Uint8Array, mode = 0o644): Promise<void> {
    const temp = path.join(
      path.dirname(file),
      `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`,
    );
    try {
      const handle = await open(temp, 'wx', mode);
      try {
        await handle.writeFile(content);
        // the rename must never publish a file whose bytes are not on disk yet
        await handle.sync();
      } finally {
        await handle.close();
      }
      await chmod(temp, mode); // open() applied the umask
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw new OperationError(`${this.host}: cannot write ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  async close(): Promise<void> {
    for (const child of this.children) child.kill();
    await Promise.all([...this.children].map((child) => child.exited));
  }
}

function toExecResult(file: string, result: Result): ExecResult {
  const stdout = typeof result.stdout === 'string' ? result.stdout : '';
  const stderr = typeof result.stderr === 'string' ? result.stderr : '';
  if (result.exitCode !== undefined) return { code: result.exitCode, stdout, stderr };
  if (result.signal !== undefined) return { code: signalExitCode(result.signal), stdout, stderr };
  // spawn failed (ENOENT, EACCES): answer like the shell on the far side of SSH
  const reason = (result.cause as NodeJS.ErrnoException | undefined)?.code;
  const code = reason === 'EACCES' ? 126 : 127;
  const message = code === 126 ? 'permission denied' : 'command not found';
  return { code, stdout, stderr: `${stderr}${file}: ${message}\n` };
}
