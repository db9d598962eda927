import { EventEmitter } from 'node:events';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { quietOnEpipe, writeTo } from '../../../src/cli/stdio.js';
import { root } from './cli-process.js';

/** A stream that records writes and fails as a closed pipe does. */
class FakeStream extends EventEmitter {
  readonly written: string[] = [];
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  fail(code: string): void {
    this.emit('error', Object.assign(new Error(`write ${code}`), { code }));
  }
}

describe('a pipe whose reader has gone', () => {
  it('ends that stream’s output quietly on EPIPE: later writes are dropped, nothing is thrown', () => {
    const out = new FakeStream();
    quietOnEpipe(out);
    writeTo(out, 'first\n');
    expect(() => out.fail('EPIPE')).not.toThrow();
    writeTo(out, 'second\n');
    expect(() => out.fail('ERR_STREAM_DESTROYED')).not.toThrow();
    expect(out.written).toEqual(['first\n']);
  });

  it('ends it quietly on EIO too: the terminal it wrote to has gone (a dropped SSH session)', () => {
    const out = new FakeStream();
    quietOnEpipe(out);
    expect(() => out.fail('EIO')).not.toThrow();
    writeTo(out, 'after\n');
    expect(out.written).toEqual([]);
  });

  it('still treats any other write error as the bug it is', () => {
    const out = new FakeStream();
    quietOnEpipe(out);
    expect(() => out.fail('ENOSPC')).toThrow('write ENOSPC');
  });

  it.each([
    ['check -c infra/deploy.example.yml', 0],
    ['check --json -c infra/deploy.example.yml', 0],
    ['check -c missing.yml', 2],
  ])(
    'deploy %s | true: no stack trace, and the exit code the command would have had',
    async (args, code) => {
      const main = path.join(root, 'src/cli/main.ts');
      // `true` exits without reading: every write of deploy's lands on a closed pipe
      const r = await execa(
        'bash',
        ['-c', `node --import tsx ${main} ${args} | true; echo "exit \${PIPESTATUS[0]}"`],
        { cwd: root, reject: false },
      );
      expect(r.stdout).toBe(`exit ${code}`);
      expect(r.stderr).not.toContain('EPIPE');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
  );
});
