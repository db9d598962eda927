import { execFileSync } from 'node:child_process';
import { mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HostUnreachableError, OperationError } from '../../src/errors.js';
import { connectSsh, type SshTransport } from '../../src/remote/ssh.js';
import { hostConfigFor, sshConfigFor, startSshd, type Sshd } from '../support/sshd.js';

const nasty = [
  'plain',
  'with space',
  "it's",
  '$(touch /tmp/handoff-pwned)',
  '`id`',
  '$HOME',
  'a\nb',
  '',
  '*',
  ';exit 7;',
  '"double"',
  '\\back\\slash',
  '!bang',
  '-n',
  'ünïcødé ✓',
];

let sshd: Sshd;
let transport: SshTransport | undefined;
let scratch: string;

beforeAll(async () => {
  sshd = await startSshd({ address: '127.0.0.21' });
  scratch = await mkdtemp(path.join(tmpdir(), 'handoff-ssh-put-'));
});

afterAll(async () => {
  await sshd.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function connect(): Promise<SshTransport> {
  const opened = await connectSsh(hostConfigFor(sshd), sshConfigFor(sshd), { env: {} });
  transport = opened;
  return opened;
}

afterEach(async () => {
  await transport?.close();
  transport = undefined;
});

describe('exec over SSH', () => {
  it('returns stdout, stderr and the exit code of the remote command', async () => {
    const ssh = await connect();
    const result = await ssh.exec(['sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(result).toEqual({ code: 3, stdout: 'out\n', stderr: 'err\n' });
  });

  it('round-trips nasty arguments exactly through the remote shell', async () => {
    const ssh = await connect();
    const result = await ssh.exec(['printf', '%s\\n', ...nasty]);
    expect(result.stdout).toBe(nasty.map((arg) => `${arg}\n`).join(''));
    expect(result.code).toBe(0);
  });

  it('passes stdin as given', async () => {
    const ssh = await connect();
    const result = await ssh.exec(['sh', '-c', 'printf "%s|" "$1"; cat', 'sh', '$(id) `x`'], {
      stdin: 'line 1\nline 2\n',
    });
    expect(result.stdout).toBe('$(id) `x`|line 1\nline 2\n');
  });

  it('rejects a command at its timeout and keeps the connection usable', async () => {
    const ssh = await connect();
    const started = Date.now();
    await expect(ssh.exec(['sleep', '30'], { timeoutMs: 300 })).rejects.toThrow(OperationError);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await ssh.exec(['echo', 'still here'])).stdout).toBe('still here\n');
  });

  it('reuses one connection for every call', async () => {
    const ssh = await connect();
    const first = await ssh.exec(['printenv', 'SSH_CONNECTION']);
    const second = await ssh.exec(['printenv', 'SSH_CONNECTION']);
    expect(first.stdout).not.toBe('');
    expect(second.stdout).toBe(first.stdout);
  });

  it('reports the exit code of every command when many fast ones run at once', async () => {
    const ssh = await connect();
    const codes = Array.from({ length: 20 }, (_, i) => i);
    const results = await Promise.all(codes.map((code) => ssh.exec(['sh', '-c', `exit ${code}`])));
    expect(results.map((result) => result.code)).toEqual(codes);
  });

  it('reports a missing remote program as exit 127', async () => {
    const ssh = await connect();
    expect((await ssh.exec(['handoff-no-such-program'])).code).toBe(127);
  });
});

describe('put over SFTP', () => {
  it('writes the content with the requested mode', async () => {
    const ssh = await connect();
    const file = path.join(scratch, 'config.json');
    await ssh.put(file, '{"a":1}\n', 0o640);
    expect(await readFile(file, 'utf8')).toBe('{"a":1}\n');
    expect((await stat(file)).mode & 0o777).toBe(0o640);
  });

  it('replaces an existing file by rename, so a reader of the old one never sees a mix', async () => {
    const ssh = await connect();
    const file = path.join(scratch, 'replaced.txt');
    await writeFile(file, 'old content');
    const reader = await open(file, 'r');
    try {
      await ssh.put(file, new TextEncoder().encode('new content'));
      expect((await reader.readFile()).toString()).toBe('old content');
      expect(await readFile(file, 'utf8')).toBe('new content');
      expect((await readdir(scratch)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      await reader.close();
    }
  });

  it('fails with the path when the directory does not exist', async () => {
    const ssh = await connect();
    const file = path.join(scratch, 'missing-dir', 'x');
    await expect(ssh.put(file, 'x')).rejects.toThrow(`cannot write ${file}`);
  });
});

describe('spawn over SSH', () => {
  it('keeps stdin open for more lines and lets the command see EOF on end()', async () => {
    const ssh = await connect();
    const proc = ssh.spawn(['sh', '-c', 'while read l; do echo "got $l"; done; echo eof']);
    const lines = proc.lines[Symbol.asyncIterator]();
    proc.write('a\n');
    expect((await lines.next()).value).toBe('got a');
    proc.write('b\n');
    expect((await lines.next()).value).toBe('got b');
    proc.end();
    expect((await lines.next()).value).toBe('eof');
    expect(await proc.exited).toBe(0);
  });

  it('reports the exit code of a long-lived command that ends at once', async () => {
    const ssh = await connect();
    expect(await ssh.spawn(['sh', '-c', 'exit 5']).exited).toBe(5);
  });

  it('resolves exited with -1 when the SSH session is killed', async () => {
    const ssh = await connect();
    const proc = ssh.spawn(['sh', '-c', 'echo ready; cat']);
    expect((await proc.lines[Symbol.asyncIterator]().next()).value).toBe('ready');
    await sshd.killSessions();
    expect(await proc.exited).toBe(-1);
    await expect(ssh.exec(['true'])).rejects.toThrow(HostUnreachableError);
  });
});

describe('connecting', () => {
  it('refuses a closed port with a HostUnreachableError naming the host', async () => {
    const ssh = sshConfigFor(sshd, { port: 1 });
    const attempt = connectSsh({ name: 'web-9', address: '127.0.0.21', target: 't' }, ssh, {
      env: {},
    });
    await expect(attempt).rejects.toThrow(HostUnreachableError);
    await expect(attempt).rejects.toThrow(/^web-9: connection refused at 127\.0\.0\.21:1/);
  });

  it('names the user and the key when the host does not accept the key', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'handoff-stranger-'));
    const stranger = path.join(dir, 'id');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger]);
    const attempt = connectSsh(
      hostConfigFor(sshd),
      sshConfigFor(sshd, { identityFile: stranger }),
      {
        env: {},
      },
    );
    await expect(attempt).rejects.toThrow(
      /^web-1: authentication as '\w+' .* failed with identity_file/,
    );
    await rm(dir, { recursive: true, force: true });
  });

  it('authenticates through ssh-agent when no identity_file is set', async () => {
    const agent = execFileSync('ssh-agent', ['-s']).toString();
    const socket = /SSH_AUTH_SOCK=([^;]+);/.exec(agent)?.[1] ?? '';
    const pid = Number(/SSH_AGENT_PID=(\d+);/.exec(agent)?.[1]);
    try {
      execFileSync('ssh-add', ['-q', sshd.identityFile], { env: { SSH_AUTH_SOCK: socket } });
      transport = await connectSsh(
        hostConfigFor(sshd),
        sshConfigFor(sshd, { identityFile: undefined }),
        {
          env: { SSH_AUTH_SOCK: socket },
        },
      );
      expect((await transport.exec(['echo', 'via agent'])).stdout).toBe('via agent\n');
    } finally {
      process.kill(pid);
    }
  });
});
