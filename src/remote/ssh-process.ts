import { PassThrough } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import { signalExitCode } from './deadline.js';
import { LineQueue } from './line-queue.js';
import { sendSignal } from './ssh-signal.js';
import type { RemoteProcess } from './transport.js';

/** A process handle now, its channel later: `attach` when it opens, `fail` if it never does. */
export interface PendingProcess {
  readonly process: RemoteProcess;
  /** must run synchronously inside ssh2's exec callback, or a fast exit status is missed */
  readonly attach: (channel: ClientChannel) => void;
  readonly fail: () => void;
}

/**
 * A long-lived remote command on an exec channel that may still be opening:
 * the caller gets its handle at once, writes made before the channel is open
 * are queued, and `exited` settles exactly once: with the exit status, or -1
 * when the channel closed without one (the connection dropped, or it never opened).
 */
export function pendingProcess(): PendingProcess {
  const stdout = new PassThrough();
  const pending: string[] = [];
  let channel: ClientChannel | undefined;
  let ended = false;
  let killed = false;
  let resolveExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });

  const kill = (open: ClientChannel): void => {
    // TERM, so a lock holder can release its lock; closing the channel is the fallback
    sendSignal(open, 'TERM');
    open.close();
  };

  const attach = (open: ClientChannel): void => {
    channel = open;
    // ssh2 gives 'close' the exit's arguments: (code) or (null, signal); neither after a drop
    open.on('close', (status?: number | null, signal?: string) => {
      // a dropped connection closes the channel without ending its stream
      if (!stdout.writableEnded) stdout.end();
      resolveExit(typeof status === 'number' ? status : signalExitCode(signal));
    });
    // a write after the remote side closed must not become an unhandled 'error'
    open.on('error', () => undefined);
    open.stderr.resume();
    open.pipe(stdout);
    for (const text of pending.splice(0)) open.write(text);
    if (ended) open.end();
    if (killed) kill(open);
  };

  const fail = (): void => {
    stdout.end();
    resolveExit(-1);
  };

  const process: RemoteProcess = {
    lines: new LineQueue(stdout),
    write: (text) => {
      if (channel) channel.write(text);
      else pending.push(text);
    },
    end: () => {
      ended = true;
      channel?.end();
    },
    exited,
    kill: () => {
      killed = true;
      if (channel) kill(channel);
    },
  };
  return { process, attach, fail };
}
