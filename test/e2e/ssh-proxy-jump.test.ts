import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostUnreachableError } from '../../src/errors.js';
import { connectSsh } from '../../src/remote/ssh.js';
import { hostConfigFor, sshConfigFor, startSshd, type Sshd } from '../support/sshd.js';

let target: Sshd;
let bastion: Sshd;
let dir: string;
let bothKnown: string;

beforeAll(async () => {
  target = await startSshd({ address: '127.0.0.23' });
  bastion = await startSshd({ address: '127.0.0.24', identityFile: target.identityFile });
  dir = await mkdtemp(path.join(tmpdir(), 'handoff-proxy-jump-'));
  bothKnown = path.join(dir, 'known_hosts');
  await writeFile(bothKnown, `${target.knownHostsLine}\n${bastion.knownHostsLine}\n`);
});

afterAll(async () => {
  await target.stop();
  await bastion.stop();
  await rm(dir, { recursive: true, force: true });
});

function jump(): string {
  return `${bastion.user}@${bastion.address}:${bastion.port}`;
}

describe('proxy_jump', () => {
  it('runs commands and writes files on the target through the bastion', async () => {
    const ssh = await connectSsh(
      hostConfigFor(target),
      sshConfigFor(target, { knownHosts: bothKnown, proxyJump: jump() }),
      { env: {} },
    );
    try {
      expect((await ssh.exec(['echo', 'behind the bastion'])).stdout).toBe('behind the bastion\n');
      const file = path.join(dir, 'through-bastion.txt');
      await ssh.put(file, 'via sftp over the jump');
      expect(await readFile(file, 'utf8')).toBe('via sftp over the jump');
      expect(bastion.log()).toMatch(/Accepted publickey/);
    } finally {
      await ssh.close();
    }
  });

  it('checks the bastion key against the same known_hosts and names the bastion', async () => {
    const attempt = connectSsh(hostConfigFor(target), sshConfigFor(target, { proxyJump: jump() }), {
      env: {},
    });
    await expect(attempt).rejects.toThrow(HostUnreachableError);
    await expect(attempt).rejects.toThrow(
      `web-1: bastion ${jump()}: host key for [127.0.0.24]:${bastion.port} is unknown`,
    );
  });

  it('says the bastion could not reach the target when the target port is closed', async () => {
    const attempt = connectSsh(
      { ...hostConfigFor(target), sshPort: 1 },
      sshConfigFor(target, { knownHosts: bothKnown, proxyJump: jump() }),
      { env: {} },
    );
    await expect(attempt).rejects.toThrow(
      `web-1: bastion ${jump()} could not open a connection to 127.0.0.23:1`,
    );
  });
});
