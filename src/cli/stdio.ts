/**
 * stdout and stderr as the CLI writes them. When the reader goes away
 * (`deploy status | head -1`) a write fails with EPIPE: that is not a crash
 * with a stack trace but the end of that stream's output. The command itself
 * goes on to its end (a rollout is not abandoned half-way because a pager
 * closed) and exits with the code it would have had. A terminal that went
 * away (the SSH session of the person who started it dropped) fails a write
 * with EIO: the same end of that stream's output.
 */
interface Stream {
  write(text: string): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
}

const closed = new WeakSet<Stream>();

/** The write errors that mean the reader (a pipe, a terminal) has gone. */
const READER_GONE = new Set(['EPIPE', 'EIO', 'ERR_STREAM_DESTROYED']);

/** Once per process, in main: an EPIPE or EIO (and any error after it) closes the stream quietly. */
export function quietOnEpipe(stream: Stream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (READER_GONE.has(error.code ?? '') || closed.has(stream)) {
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
