import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { constants } from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Options } from 'execa';
import { OperationError } from '../errors.js';

/**
 * The one executor for processes the host side starts itself (runtimes,
 * status commands). Every process gets its own process group, so a timeout
 * kills what it spawned too, and a service a start command backgrounds is not
 * in the SSH session's group and survives the session's hangup.
 */

export interface HostRunOptions {
  readonly cwd?: string;
  /** added to the executor's base environment */
  readonly env?: Readonly<Record<string, string>>;
  /** kill the whole process group (SIGKILL) after this long */
  readonly timeoutMs?: number;
  /** aborting sends SIGTERM to the whole process group */
  readonly signal?: AbortSignal;
  /**
   * Send stdout and stderr to this file (truncated first) instead of capturing
   * them. Needed for commands that background a daemon: a captured pipe stays
   * open as long as the daemon lives, and waiting for it would never end.
   */
  readonly outputFile?: string;
  /**
   * Each line of stdout and stderr as it comes, besides the captured whole
   * (a carriage return ends a line too: progress bars redraw with it).
   * Not with outputFile.
   */
  readonly onLine?: (line: string) => void;
  /** false: keep none of the output (it went to onLine): a `logs -f` runs for hours */
  readonly capture?: false;
}

export interface HostRunResult {
  /** the exit code, or 128 + signal number when a signal ended it */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

export type HostExec = (
  argv: readonly string[],
  options?: HostRunOptions,
) => Promise<HostRunResult>;

const maxBuffer = 1024 * 1024;

export function createHostExec(base: { readonly env?: NodeJS.ProcessEnv } = {}): HostExec {
  const baseEnv = base.env ?? process.env;
  return async (argv, options = {}) => {
    const [file, ...args] = argv;
    if (file === undefined) throw new OperationError('internal: an empty command line');
    const output = options.outputFile ? await openOutput(options.outputFile) : undefined;
    // execa's types list only fds 3–9, but it hands any descriptor to spawn as is
    const sink = (output?.fd ?? 'pipe') as Options['stdout'];
    const execaOptions: Options = {
      cwd: options.cwd,
      env: { ...baseEnv, ...options.env },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      stdout: sink,
      stderr: sink,
      detached: true,
      maxBuffer,
      ...(options.capture === false ? { buffer: false } : {}),
    };
    // imported here, not above: a watchdog tick on a healthy host runs nothing (docs/benchmarks.md)
    const { execa } = await import('execa');
    const subprocess = execa(file, args, execaOptions);
    if (options.onLine && !output) {
      for (const stream of [subprocess.stdout, subprocess.stderr])
        if (stream) streamLines(stream, options.onLine);
    }
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            killGroup(subprocess.pid, 'SIGKILL');
          }, options.timeoutMs);
    const onAbort = (): void => killGroup(subprocess.pid, 'SIGTERM');
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await subprocess;
      if (result.failed && result.exitCode === undefined && result.signal === undefined) {
        // it never started: ENOENT, EACCES, a missing cwd
        throw new OperationError(
          `cannot run ${file}: ${result.originalMessage ?? result.shortMessage}`,
        );
      }
      const bySignal = result.signal ? 128 + (constants.signals[result.signal] ?? 0) : -1;
      return {
        code: result.exitCode ?? bySignal,
        stdout: typeof result.stdout === 'string' ? result.stdout : '',
        stderr: typeof result.stderr === 'string' ? result.stderr : '',
        timedOut,
      };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      await output?.close();
    }
  };
}

/** Calls onLine for every non-empty line of a stream; a last line without a newline comes at its end. */
function streamLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  // a character split across two chunks is joined, not turned into two U+FFFD
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const emit = (text: string): void => {
    const parts = (rest + text).split(/[\r\n]/);
    rest = parts.pop() ?? '';
    for (const line of parts) if (line !== '') onLine(line);
  };
  stream.on('data', (chunk: Buffer | string) => emit(decoder.write(Buffer.from(chunk))));
  stream.on('end', () => {
    emit(decoder.end());
    if (rest !== '') onLine(rest);
    rest = '';
  });
}

async function openOutput(file: string): Promise<FileHandle> {
  await mkdir(path.dirname(file), { recursive: true });
  return open(file, 'w', 0o640);
}

/** Signal a process group (spawned with `detached`): the process and everything it started. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
