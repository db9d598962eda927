import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostUnreachableError } from '../../src/errors.js';
import { connectSsh } from '../../src/remote/ssh.js';
import { hostConfigFor, sshConfigFor, startSshd, type Sshd } from '../support/sshd.js';

let sshd: Sshd;
let dir: string;
let rsaLine: string;
let offered: string;

/** the fingerprint as an operator would compute it on the host */
function fingerprintOf(knownHostsFile: string): string {
  return execFileSync('ssh-keygen', ['-lf', knownHostsFile]).toString().split(' ')[1] ?? '';
}

async function knownHosts(name: string, lines: readonly string[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, lines.map((line) => `${line}\n`).join(''));
  return file;
}

async function connectWith(knownHostsPath: string): Promise<string> {
  const ssh = await connectSsh(
    hostConfigFor(sshd),
    sshConfigFor(sshd, { knownHosts: knownHostsPath }),
    {
      env: {},
    },
  );
  try {
    return (await ssh.exec(['echo', 'connected'])).stdout;
  } finally {
    await ssh.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'handoff-host-keys-'));
  const rsaKey = path.join(dir, 'ssh_host_rsa_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'rsa', '-b', '2048', '-N', '', '-f', rsaKey]);
  sshd = await startSshd({ address: '127.0.0.22', config: [`HostKey ${rsaKey}`] });
  const [type, key] = (await readFile(`${rsaKey}.pub`, 'utf8')).split(' ');
  rsaLine = `[${sshd.address}]:${sshd.port} ${type} ${key}`;
  offered = fingerprintOf(sshd.knownHostsPath);
});

afterAll(async () => {
  await sshd.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('strict host keys', () => {
  it('connects when known_hosts lists the host key under [host]:port', async () => {
    expect(await connectWith(sshd.knownHostsPath)).toBe('connected\n');
  });

  it('refuses an unknown host with its fingerprint and the exact line to add', async () => {
    const file = await knownHosts('other-host', [
      '10.9.9.9 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl',
    ]);
    const attempt = connectWith(file);
    await expect(attempt).rejects.toThrow(HostUnreachableError);
    await expect(attempt).rejects.toThrow(
      `web-1: host key for [127.0.0.22]:${sshd.port} is unknown: offered ${offered}`,
    );
    await expect(attempt).rejects.toThrow(`add this line to ${file}: ${sshd.knownHostsLine}`);
  });

  it('treats a missing known_hosts file as knowing no host', async () => {
    const missing = path.join(dir, 'no-such-known-hosts');
    await expect(connectWith(missing)).rejects.toThrow(
      `add this line to ${missing}: ${sshd.knownHostsLine}`,
    );
  });

  it('refuses a changed key and says it may be a man-in-the-middle', async () => {
    const stranger = path.join(dir, 'stranger');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger]);
    const [type, key] = (await readFile(`${stranger}.pub`, 'utf8')).split(' ');
    const file = await knownHosts('changed', [`[${sshd.address}]:${sshd.port} ${type} ${key}`]);
    const attempt = connectWith(file);
    await expect(attempt).rejects.toThrow(/has CHANGED \(possible man-in-the-middle attack/);
    await expect(attempt).rejects.toThrow(`offered ${offered}`);
  });

  it('accepts an entry hashed with ssh-keygen -H', async () => {
    const file = path.join(dir, 'hashed');
    await copyFile(sshd.knownHostsPath, file);
    execFileSync('ssh-keygen', ['-q', '-H', '-f', file], { stdio: 'ignore' });
    expect(await readFile(file, 'utf8')).toMatch(/^\|1\|/);
    expect(await connectWith(file)).toBe('connected\n');
  });

  it('does not let a bare-address entry vouch for a port other than 22', async () => {
    const bare = sshd.knownHostsLine.replace(`[${sshd.address}]:${sshd.port}`, sshd.address);
    const file = await knownHosts('bare', [bare]);
    await expect(connectWith(file)).rejects.toThrow(/is unknown/);
  });

  it('refuses a key marked @revoked although another line lists it', async () => {
    const revoked = sshd.knownHostsLine.replace(`[${sshd.address}]:${sshd.port}`, '@revoked *');
    const file = await knownHosts('revoked', [sshd.knownHostsLine, revoked]);
    await expect(connectWith(file)).rejects.toThrow(/is marked @revoked/);
  });

  it('asks for the key type known_hosts holds, so a host known by its RSA key connects', async () => {
    const file = await knownHosts('rsa-only', [rsaLine]);
    expect(await connectWith(file)).toBe('connected\n');
  });
});
