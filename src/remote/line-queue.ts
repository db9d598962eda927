import type { Readable } from 'node:stream';

/**
 * Complete stdout lines of a long-running command as an async iterable.
 * The stream is read eagerly and lines are buffered until someone iterates:
 * a remote process whose output nobody reads yet must not block on a full
 * pipe (or a full SSH window) and hang its own exit.
 */
export class LineQueue implements AsyncIterable<string> {
  private readonly buffered: string[] = [];
  private waiting: ((result: IteratorResult<string>) => void) | undefined;
  private partial = '';
  private ended = false;

  constructor(stream: Readable) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => this.push(chunk));
    stream.on('end', () => this.end());
    stream.on('close', () => this.end());
    stream.on('error', () => this.end());
  }

  private push(chunk: string): void {
    const parts = (this.partial + chunk).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.deliver(line.endsWith('\r') ? line.slice(0, -1) : line);
  }

  private deliver(line: string): void {
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value: line, done: false });
    } else {
      this.buffered.push(line);
    }
  }

  /** the last line counts even without a final newline */
  end(): void {
    if (this.ended) return;
    if (this.partial !== '') this.deliver(this.partial);
    this.partial = '';
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return {
      next: () => {
        const line = this.buffered.shift();
        if (line !== undefined) return Promise.resolve({ value: line, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
    };
  }
}
