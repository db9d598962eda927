import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { constants } from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Options } from 'execa';
import { systemClock, type Clock } from '../clock.js';

/**
 * The one way handoff runs a local process, on a host (runtimes, status
 * commands, `deploy lock exec`) and on the orchestrator (hooks, the canary's
 * count command): argv, never a shell line; its own process group, so a
 * timeout or an abort reaches what it started too; the timeout on the
 * injected clock. Its output comes back whole (a caller parses stdout); a
 * caller that quotes it in a message cuts it only with safe-text.ts's
 * `excerpt`, which masks secrets before it cuts.
 */
export interface RunOptions {
  readonly cwd?: string;
  /** the environment; with `extendEnv`, added to this process's own */
  readonly env?: NodeJS.ProcessEnv;
  readonly extendEnv?: boolean;
  /** SIGKILL to the whole group after this long, on `clock` */
  readonly timeoutMs?: number;
  readonly clock?: Clock;
  /**
   * Aborting signals the process (its group, with `group`): the abort reason
   * when it names a signal ('SIGINT'), else SIGTERM.
   */
  readonly signal?: AbortSignal;
  /**
   * capture: stdout and stderr kept (up to `maxBuffer` each), and each line
   * given to `onLine` as it comes (a carriage return ends a line too);
   * lines: only given to `onLine`, nothing kept; inherit: the terminal's;
   * a file: both written to it (truncated first) — for commands that background
   * a daemon, whose pipe would stay open as long as the daemon lives.
   */
  readonly output?: 'capture' | 'lines' | 'inherit' | { readonly file: string };
  readonly onLine?: (line: string) => void;
  readonly maxBuffer?: number;
  /**
   * Its own process group (default). Off only for a command on the terminal
   * (`inherit`): a background group cannot read it.
   */
  readonly group?: boolean;
}

export type RunResult =
  | {
      readonly started: true;
      /** the exit code, or 128 + signal number when a signal ended it */
      readonly code: number;
      /** the signal that ended it, if one did */
      readonly endedBy?: string;
      readonly stdout: string;
      readonly stderr: string;
      readonly timedOut: boolean;
    }
  | {
      /** it never ran: ENOENT, EACCES, a missing cwd */
      readonly started: false;
      readonly why: string;
      readonly notFound: boolean;
    };

const MAX_BUFFER = 1024 * 1024;

export async function runProcess(
  argv: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('internal: an empty command line');
  const output = options.output ?? 'capture';
  const sinkFile = typeof output === 'object' ? await openOutput(output.file) : undefined;
  const group = options.group ?? true;
  // imported here, not above: a watchdog tick on a healthy host runs nothing (docs/benchmarks.md)
  const { execa } = await import('execa');
  const child = execa(file, args, execaOptions(options, output, sinkFile));
  if (options.onLine && (output === 'capture' || output === 'lines'))
    for (const stream of [child.stdout, child.stderr])
      if (stream) streamLines(stream, options.onLine);
  const kill = (signal: NodeJS.Signals): void =>
    group ? killGroup(child.pid, signal) : void child.kill(signal);
  const deadline = new AbortController();
  let timedOut = false;
  if (options.timeoutMs !== undefined)
    void (options.clock ?? systemClock).sleep(options.timeoutMs, deadline.signal).then(
      () => {
        timedOut = true;
        kill('SIGKILL');
      },
      () => undefined,
    );
  const onAbort = (): void => kill(signalOf(options.signal?.reason));
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await child;
    if (result.failed && result.exitCode === undefined && result.signal === undefined)
      return {
        started: false,
        why: result.originalMessage ?? result.shortMessage ?? 'it did not start',
        notFound: result.code === 'ENOENT',
      };
    const bySignal = result.signal ? 128 + (constants.signals[result.signal] ?? 0) : -1;
    return {
      started: true,
      code: result.exitCode ?? bySignal,
      ...(result.signal && { endedBy: result.signal }),
      stdout: typeof result.stdout === 'string' ? result.stdout : '',
      stderr: typeof result.stderr === 'string' ? result.stderr : '',
      timedOut,
    };
  } finally {
    deadline.abort();
    options.signal?.removeEventListener('abort', onAbort);
    await sinkFile?.close();
  }
}

function execaOptions(
  options: RunOptions,
  output: NonNullable<RunOptions['output']>,
  sinkFile: FileHandle | undefined,
): Options {
  const base: Options = {
    cwd: options.cwd,
    env: options.env,
    extendEnv: options.extendEnv ?? false,
    reject: false,
    detached: options.group ?? true,
    maxBuffer: options.maxBuffer ?? MAX_BUFFER,
  };
  if (output === 'inherit') return { ...base, stdio: 'inherit' };
  // execa's types list only fds 3–9, but it hands any descriptor to spawn as is;
  // lines nobody reads would fill the pipe and hang the process
  const unread = output === 'lines' && !options.onLine;
  const sink = (sinkFile?.fd ?? (unread ? 'ignore' : 'pipe')) as Options['stdout'];
  return {
    ...base,
    stdin: 'ignore',
    stdout: sink,
    stderr: sink,
    ...(output === 'lines' && { buffer: false }),
  };
}

/** The abort reason when it names a signal, else SIGTERM. */
function signalOf(reason: unknown): NodeJS.Signals {
  return typeof reason === 'string' && reason in constants.signals
    ? (reason as NodeJS.Signals)
    : 'SIGTERM';
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
