import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineQueue } from '../../../src/remote/line-queue.js';

async function collect(queue: LineQueue): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of queue) lines.push(line);
  return lines;
}

describe('LineQueue', () => {
  it('joins lines split across chunks and keeps lines that arrived before anyone iterated', async () => {
    const stream = new PassThrough();
    const queue = new LineQueue(stream);
    stream.write('first\nsec');
    stream.write('ond\r\nthird');
    stream.end();
    expect(await collect(queue)).toEqual(['first', 'second', 'third']);
  });

  it('hands a line to a waiting reader as soon as it is complete', async () => {
    const stream = new PassThrough();
    const queue = new LineQueue(stream);
    const next = queue[Symbol.asyncIterator]().next();
    stream.write('ready\n');
    expect(await next).toEqual({ value: 'ready', done: false });
    stream.end();
  });

  it('ends the iteration when the stream closes without a final newline', async () => {
    const stream = new PassThrough();
    const queue = new LineQueue(stream);
    stream.end();
    expect(await collect(queue)).toEqual([]);
  });

  it('keeps empty lines', async () => {
    const stream = new PassThrough();
    const queue = new LineQueue(stream);
    stream.end('a\n\nb\n');
    expect(await collect(queue)).toEqual(['a', '', 'b']);
  });
});
