import { mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OperationError } from '../../../src/errors.js';
import { LocalTransport } from '../../../src/remote/local.js';

let dir: string;
let local: LocalTransport;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'handoff-local-'));
  local = new LocalTransport('web-1');
});

afterEach(async () => {
  await local.close();
  await rm(dir, { recursive: true, force: true });
});

describe('LocalTransport.exec', () => {
  it('returns stdout, stderr and the exit code byte for byte', async () => {
    const result = await local.exec(['sh', '-c', 'printf "out\\n\\n"; echo err >&2; exit 4']);
    expect(result).toEqual({ code: 4, stdout: 'out\n\n', stderr: 'err\n' });
  });

  it('passes arguments without a shell, so nothing in them is expanded', async () => {
    const args = ['$(id)', "it's", 'a b', '', '*'];
    const result = await local.exec(['printf', '%s|', ...args]);
    expect(result.stdout).toBe("$(id)|it's|a b||*|");
  });

  it('feeds stdin and adds the environment', async () => {
    const result = await local.exec(['sh', '-c', 'printf "%s:" "$RELEASE"; cat'], {
      stdin: 'hello',
      env: { RELEASE: 'r42' },
    });
    expect(result.stdout).toBe('r42:hello');
  });

  it('closes stdin when none is given, so a reader does not wait forever', async () => {
    expect((await local.exec(['cat'])).stdout).toBe('');
  });

  it('answers a missing program with exit 127, as a remote shell would', async () => {
    const result = await local.exec(['handoff-no-such-program']);
    expect(result.code).toBe(127);
    expect(result.stderr).toMatch(/handoff-no-such-program: command not found/);
  });

  it('kills a command that outlives its timeout and rejects', async () => {
    const started = Date.now();
    await expect(local.exec(['sleep', '30'], { timeoutMs: 200 })).rejects.toThrow(OperationError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('rejects with the abort reason when the signal aborts', async () => {
    const controller = new AbortController();
    const running = local.exec(['sleep', '30'], { signal: controller.signal });
    controller.abort(new Error('interrupted'));
    await expect(running).rejects.toThrow('interrupted');
  });
});

describe('LocalTransport.spawn', () => {
  it('keeps stdin open between writes and ends on end()', async () => {
    const proc = local.spawn(['sh', '-c', 'while read l; do echo "got $l"; done; echo eof']);
    const lines = proc.lines[Symbol.asyncIterator]();
    proc.write('a\n');
    expect((await lines.next()).value).toBe('got a');
    proc.write('b\n');
    expect((await lines.next()).value).toBe('got b');
    proc.end();
    expect((await lines.next()).value).toBe('eof');
    expect(await proc.exited).toBe(0);
  });

  it('reports a killed process as 128 + the signal number', async () => {
    const proc = local.spawn(['sh', '-c', 'echo ready; exec sleep 30']);
    expect((await proc.lines[Symbol.asyncIterator]().next()).value).toBe('ready');
    proc.kill();
    expect(await proc.exited).toBe(128 + 15);
  });

  it('kills what is still running on close', async () => {
    const proc = local.spawn(['sleep', '30']);
    await local.close();
    expect(await proc.exited).toBe(128 + 15);
  });
});

describe('LocalTransport.put', () => {
  it('writes the content with the requested mode despite the umask', async () => {
    const file = path.join(dir, 'host.json');
    await local.put(file, '{}\n', 0o600);
    expect(await readFile(file, 'utf8')).toBe('{}\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('replaces an existing file by rename: an open reader keeps the old content', async () => {
    const file = path.join(dir, 'compose.yml');
    await writeFile(file, 'old');
    const reader = await open(file, 'r');
    try {
      await local.put(file, new TextEncoder().encode('new'));
      expect((await reader.readFile()).toString()).toBe('old');
      expect(await readFile(file, 'utf8')).toBe('new');
      expect(await readdir(dir)).toEqual(['compose.yml']);
    } finally {
      await reader.close();
    }
  });

  it('fails with the path and leaves no temp file when the directory is missing', async () => {
    const file = path.join(dir, 'missing', 'x');
    await expect(local.put(file, 'x')).rejects.toThrow(`web-1: cannot write ${file}`);
    expect(await readdir(dir)).toEqual([]);
  });
});
