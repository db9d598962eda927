import { describe, expect, it } from 'vitest';
import { sshNginxHost, type RemoteHost } from '../../../src/balancer/nginx/ssh-host.js';
import { OperationError } from '../../../src/errors.js';
import type {
  ExecResult,
  FileOwner,
  RemoteProcess,
  Transport,
} from '../../../src/remote/transport.js';

/**
 * The balancer host's SSH connection as the nginx host drives it: execs
 * recorded, files put, and a flock holder that echoes its stdin (as `cat`
 * does once flock holds the lock) or exits 1 (flock -w timed out).
 */
class FakeConnection implements Transport {
  readonly host = 'lb-1';
  readonly execs: string[][] = [];
  readonly puts: {
    path: string;
    content: string;
    mode: number | undefined;
    owner: FileOwner | undefined;
  }[] = [];
  readonly events: string[] = [];
  lockBusy = false;
  stat = '640 0 33';

  exec(argv: readonly string[]): Promise<ExecResult> {
    this.execs.push([...argv]);
    if (argv[0] === 'stat')
      return Promise.resolve({ code: 0, stdout: `${this.stat}\n`, stderr: '' });
    return Promise.resolve({ code: 0, stdout: '', stderr: '' });
  }
  spawn(argv: readonly string[]): RemoteProcess {
    this.events.push(`spawn ${argv.join(' ')}`);
    const events = this.events;
    const queue: string[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    let exit: (code: number) => void = () => undefined;
    const exited = new Promise<number>((resolve) => (exit = resolve));
    const finish = (code: number) => {
      done = true;
      wake?.();
      exit(code);
    };
    if (this.lockBusy) finish(1);
    return {
      lines: {
        [Symbol.asyncIterator]: () => ({
          async next() {
            while (queue.length === 0 && !done) await new Promise<void>((r) => (wake = r));
            const value = queue.shift();
            return value === undefined ? { done: true, value: undefined } : { done: false, value };
          },
        }),
      },
      write: (line) => {
        if (done) return;
        queue.push(line.replace(/\n$/, ''));
        wake?.();
      },
      end: () => {
        events.push('released');
        finish(0);
      },
      exited,
      kill: () => finish(143),
    };
  }
  put(path: string, content: string | Uint8Array, mode?: number, owner?: FileOwner): Promise<void> {
    this.puts.push({ path, content: String(content), mode, owner });
    return Promise.resolve();
  }
  upload(): Promise<void> {
    return Promise.reject(new Error('not used'));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

function remoteOf(connection: FakeConnection, files: Record<string, string> = {}): RemoteHost {
  return {
    where: 'lb-1',
    connect: () => Promise.resolve(connection),
    read: (file) =>
      Promise.resolve(
        file in files
          ? { ok: true, text: files[file] ?? '' }
          : { ok: false, reason: `cat: ${file}: Permission denied` },
      ),
    close: () => Promise.resolve(),
  };
}

describe('nginx on its own host over SSH', () => {
  it('runs nginx through sudo -n unless the SSH user is root, and other commands as they are', async () => {
    const connection = new FakeConnection();
    await sshNginxHost(remoteOf(connection), false).run(['nginx', '-t', '-q']);
    await sshNginxHost(remoteOf(connection), false).run(['ps', '-o', 'pid=,args=', '--ppid', '1']);
    await sshNginxHost(remoteOf(connection), true).run(['nginx', '-s', 'reload']);
    expect(connection.execs).toEqual([
      ['sudo', '-n', 'nginx', '-t', '-q'],
      ['ps', '-o', 'pid=,args=', '--ppid', '1'],
      ['nginx', '-s', 'reload'],
    ]);
  });

  it("rewrites a file with the original's mode and owner (put: temp file beside it, then rename)", async () => {
    const connection = new FakeConnection();
    await sshNginxHost(remoteOf(connection), true).write('/etc/nginx/handoff/api.conf', 'x\n');
    expect(connection.execs).toEqual([
      ['stat', '-c', '%a %u %g', '--', '/etc/nginx/handoff/api.conf'],
    ]);
    expect(connection.puts).toEqual([
      {
        path: '/etc/nginx/handoff/api.conf',
        content: 'x\n',
        mode: 0o640,
        owner: { uid: 0, gid: 33 },
      },
    ]);
  });

  it('writes nothing when the file cannot be stat-ed there', async () => {
    const connection = new FakeConnection();
    connection.stat = '';
    await expect(
      sshNginxHost(remoteOf(connection), true).write('/etc/nginx/handoff/api.conf', 'x\n'),
    ).rejects.toThrow('cannot stat /etc/nginx/handoff/api.conf on lb-1');
    expect(connection.puts).toEqual([]);
  });

  it('names the file and the host when it cannot be read', async () => {
    const host = sshNginxHost(remoteOf(new FakeConnection()), true);
    await expect(host.read('/etc/nginx/nginx.conf')).rejects.toThrow(
      'cannot read nginx file /etc/nginx/nginx.conf on lb-1: cat: /etc/nginx/nginx.conf: Permission denied',
    );
  });

  it('edits only while flock holds FILE.flock there, and releases it after', async () => {
    const connection = new FakeConnection();
    const host = sshNginxHost(remoteOf(connection), true);
    const result = await host.locked('/etc/nginx/handoff/api.conf', () => {
      connection.events.push('edit');
      return Promise.resolve(7);
    });
    expect(result).toBe(7);
    expect(connection.events).toEqual([
      'spawn flock -w 10 -- /etc/nginx/handoff/api.conf.flock cat',
      'edit',
      'released',
    ]);
  });

  it('releases the lock when the edit fails', async () => {
    const connection = new FakeConnection();
    const host = sshNginxHost(remoteOf(connection), true);
    await expect(
      host.locked('/f.conf', () => Promise.reject(new OperationError('nginx -t failed'))),
    ).rejects.toThrow('nginx -t failed');
    expect(connection.events.at(-1)).toBe('released');
  });

  it('does not edit when another holds the lock past the wait', async () => {
    const connection = new FakeConnection();
    connection.lockBusy = true;
    const host = sshNginxHost(remoteOf(connection), true);
    let edited = false;
    await expect(
      host.locked('/f.conf', () => {
        edited = true;
        return Promise.resolve();
      }),
    ).rejects.toThrow('another edit of /f.conf on lb-1 holds /f.conf.flock; try again');
    expect(edited).toBe(false);
  });
});
