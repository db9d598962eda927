import type { ClientChannel } from 'ssh2';
import type { Clock } from '../clock.js';
import { commandTimedOut, describeCommand } from './command-errors.js';
import { signalExitCode, startDeadline } from './deadline.js';
import { connectionLost } from './ssh-errors.js';
import { sendSignal } from './ssh-signal.js';
import type { ExecOptions, ExecResult } from './transport.js';

export interface ChannelExec {
  readonly host: string;
  readonly argv: readonly string[];
  readonly clock: Clock;
  readonly options: ExecOptions;
}

/**
 * Runs one command to completion on an open exec channel. Output is collected
 * as bytes and decoded once at the end, so a UTF-8 character split across two
 * SSH packets comes out whole. A timeout or an abort sends KILL, closes the
 * channel and rejects at once: sshd only confirms the close when the process
 * has exited, and OpenSSH (9.2 at least) refuses signals on root logins, so
 * waiting for the confirmation could wait for the hung command itself.
 */
export function execOnChannel(channel: ClientChannel, run: ChannelExec): Promise<ExecResult> {
  const { host, argv, clock, options } = run;
  return new Promise((resolve, reject) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      cancelDeadline();
      options.signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const stop = (error: unknown): void => {
      if (!settle()) return;
      sendSignal(channel, 'KILL');
      channel.close();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    const cancelDeadline = startDeadline(clock, options.timeoutMs, () =>
      stop(commandTimedOut(host, argv, options.timeoutMs ?? 0)),
    );
    const onAbort = (): void => stop(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    channel.on('error', () => undefined); // 'close' settles the call either way
    channel.on('data', (chunk: Buffer) => stdout.push(chunk));
    channel.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // ssh2 gives 'close' the exit's arguments: (code) or (null, signal); neither after a drop
    channel.on('close', (status?: number | null, signal?: string) => {
      if (!settle()) return;
      const code =
        typeof status === 'number' ? status : signal ? signalExitCode(signal) : undefined;
      if (code === undefined)
        reject(connectionLost(host, `while running '${describeCommand(argv)}'`));
      else
        resolve({
          code,
          stdout: Buffer.concat(stdout).toString('utf8'),
          stderr: Buffer.concat(stderr).toString('utf8'),
        });
    });
    channel.end(options.stdin);
    // aborted while the channel was opening: the listener above came too late to hear it
    if (options.signal?.aborted) onAbort();
  });
}
