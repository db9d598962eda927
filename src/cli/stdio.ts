/**
 * stdout and stderr as the CLI writes them. When the reader goes away
 * (`deploy status | head -1`) a write fails with EPIPE: that is not a crash
 * with a stack trace but the end of that stream's output. The command itself
 * goes on to its end (a rollout is not abandoned half-way because a pager
 * closed) and exits with the code it would have had.
 */
interface Stream {
  write(text: string): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
}

const closed = new WeakSet<Stream>();

/** Once per process, in main: an EPIPE (and any error after it) closes the stream quietly. */
export function quietOnEpipe(stream: Stream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED' || closed.has(stream)) {
      closed.add(stream);
      return;
    }
    throw error;
  });
}

/** Writes unless the reader has gone. */
export function writeTo(stream: Stream, text: string): void {
  if (closed.has(stream)) return;
  stream.write(text);
}

export const toStdout = (text: string): void => writeTo(process.stdout, text);
export const toStderr = (text: string): void => writeTo(process.stderr, text);
