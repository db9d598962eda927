import type { Clock } from '../clock.js';
import { OperationError } from '../errors.js';
import { runProcess } from '../process/run.js';

/**
 * The executor for processes the host side starts itself (runtimes, status
 * commands), over the one local process runner (process/run.ts). Every
 * process gets its own process group, so a timeout kills what it spawned too,
 * and a service a start command backgrounds is not in the SSH session's group
 * and survives the session's hangup.
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

export function createHostExec(
  base: { readonly env?: NodeJS.ProcessEnv; readonly clock?: Clock } = {},
): HostExec {
  const baseEnv = base.env ?? process.env;
  return async (argv, options = {}) => {
    if (argv[0] === undefined) throw new OperationError('internal: an empty command line');
    const result = await runProcess(argv, {
      cwd: options.cwd,
      env: { ...baseEnv, ...options.env },
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      ...(base.clock && { clock: base.clock }),
      ...(options.signal && { signal: options.signal }),
      output: options.outputFile
        ? { file: options.outputFile }
        : options.capture === false
          ? 'lines'
          : 'capture',
      ...(options.onLine && { onLine: options.onLine }),
    });
    if (!result.started) throw new OperationError(`cannot run ${argv[0]}: ${result.why}`);
    return {
      code: result.code,
      stdout: result.stdout,
      stderr: result.stderr,
      timedOut: result.timedOut,
    };
  };
}
