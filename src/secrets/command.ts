import type { SecretSource } from '../config/types.js';
import { formatDuration } from '../config/kit/duration.js';
import { runProcess } from '../process/run.js';
import { excerpt } from '../safe-text.js';
import { SecretFetchError } from './fetch-error.js';

type CommandSource = Extract<SecretSource, { kind: 'command' }>;

/** a secret is a line or a key, not a file: more is a mistake (a command that prints a listing) */
const MAX_BYTES = 64 * 1024;

/**
 * A program whose stdout is the value (`op read …`, `bw get …`, `vault kv get
 * -field=… …`): run through the one process runner with its argv as written,
 * no shell, the orchestrator's environment, no stdin, killed with what it
 * started at `timeout`. One trailing newline is not part of the value. Its
 * stderr's first line, masked then cut, explains a failure; its stdout is
 * never quoted.
 */
export async function fetchFromCommand(
  source: CommandSource,
  signal: AbortSignal,
): Promise<string> {
  const what = `command ${source.argv[0] ?? ''}`;
  const run = await runProcess(source.argv, {
    env: process.env,
    timeoutMs: source.timeout,
    signal,
    // one more than allowed: a value that fills it was longer
    maxBuffer: MAX_BYTES + 1,
  });
  if (!run.started)
    throw run.notFound
      ? new SecretFetchError('missing', `${what}: no such program on PATH`)
      : new SecretFetchError('blocked', `${what} did not start: ${run.why}`);
  if (run.timedOut)
    throw new SecretFetchError(
      'blocked',
      `${what} did not finish within ${formatDuration(source.timeout)} (timeout); it was killed`,
    );
  if (run.stdout.length > MAX_BYTES)
    throw new SecretFetchError('missing', `${what} printed more than ${MAX_BYTES} bytes`);
  if (run.code !== 0) {
    const line = excerpt(run.stderr, 160);
    throw new SecretFetchError('blocked', `${what} exited ${run.code}${line ? `: ${line}` : ''}`);
  }
  const value = run.stdout.replace(/\r?\n$/, '');
  if (value === '') throw new SecretFetchError('missing', `${what} printed nothing`);
  return value;
}
