import { execFile, type ExecFileException } from 'node:child_process';
import type { SecretSource } from '../config/types.js';
import { formatDuration } from '../config/duration.js';
import { SecretFetchError } from './fetch-error.js';

type CommandSource = Extract<SecretSource, { kind: 'command' }>;

/** a secret is a line or a key, not a file: more is a mistake (a command that prints a listing) */
const MAX_BYTES = 64 * 1024;

/**
 * A program whose stdout is the value (`op read …`, `bw get …`, `vault kv get
 * -field=… …`): run with its argv as written, no shell, the orchestrator's
 * environment, no stdin, killed at `timeout`. One trailing newline is not
 * part of the value. Its stderr's first line explains a failure; its stdout
 * is never quoted.
 */
export function fetchFromCommand(source: CommandSource, signal: AbortSignal): Promise<string> {
  const [program, ...args] = source.argv;
  const what = `command ${program ?? ''}`;
  return new Promise((resolve, reject) => {
    execFile(
      program ?? '',
      args,
      {
        timeout: source.timeout,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_BYTES,
        signal,
        encoding: 'utf8',
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error) return reject(failure(error, what, source.timeout, stderr));
        const value = stdout.replace(/\r?\n$/, '');
        if (value === '') return reject(new SecretFetchError('missing', `${what} printed nothing`));
        resolve(value);
      },
    ).stdin?.end();
  });
}

function failure(
  error: ExecFileException,
  what: string,
  timeout: number,
  stderr: string,
): SecretFetchError {
  if (error.code === 'ENOENT')
    return new SecretFetchError('missing', `${what}: no such program on PATH`);
  if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
    return new SecretFetchError('missing', `${what} printed more than ${MAX_BYTES} bytes`);
  if (error.killed)
    return new SecretFetchError(
      'blocked',
      `${what} did not finish within ${formatDuration(timeout)} (timeout); it was killed`,
    );
  const line = stderr.trim().split('\n')[0]?.slice(0, 160);
  const status = typeof error.code === 'number' ? `exited ${error.code}` : 'failed';
  return new SecretFetchError('blocked', `${what} ${status}${line ? `: ${line}` : ''}`);
}
