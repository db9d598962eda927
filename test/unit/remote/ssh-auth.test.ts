import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshConfig } from '../../../src/config/types.js';
import { UsageError } from '../../../src/errors.js';
import { resolveAuth } from '../../../src/remote/ssh-auth.js';

let dir: string;
let plainKey: string;
let lockedKey: string;

function ssh(identityFile: string | undefined): SshConfig {
  return {
    user: 'deploy',
    port: 22,
    identityFile,
    knownHosts: '/dev/null',
    connectTimeout: 1000,
    maxConnections: 50,
    sudo: false,
  };
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'handoff-auth-'));
  plainKey = path.join(dir, 'plain');
  lockedKey = path.join(dir, 'locked');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', plainKey]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'secret phrase', '-f', lockedKey]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** the base64 of the public key ssh-keygen wrote beside `file` */
function publicOf(file: string): string | undefined {
  return readFileSync(`${file}.pub`, 'utf8').split(' ')[1];
}

describe('resolveAuth', () => {
  it('uses identity_file when it needs no passphrase', async () => {
    const auth = await resolveAuth(ssh(plainKey), { SSH_AUTH_SOCK: '/agent.sock' });
    expect(auth.key?.isPrivateKey()).toBe(true);
    expect(auth.key?.getPublicSSH().toString('base64')).toBe(publicOf(plainKey));
    expect(auth.agent).toBeUndefined();
    expect(auth.describe).toBe(`identity_file ${plainKey}`);
  });

  it('falls back to ssh-agent for a passphrase-protected identity_file', async () => {
    const auth = await resolveAuth(ssh(lockedKey), { SSH_AUTH_SOCK: '/agent.sock' });
    expect(auth.agent).toBe('/agent.sock');
    expect(auth.key).toBeUndefined();
  });

  it('refuses a passphrase-protected key without an agent, saying to ssh-add it', async () => {
    const attempt = resolveAuth(ssh(lockedKey), {});
    await expect(attempt).rejects.toThrow(UsageError);
    await expect(attempt).rejects.toThrow(/protected by a passphrase .* ssh-add/);
  });

  it('uses ssh-agent when no identity_file is set', async () => {
    expect(await resolveAuth(ssh(undefined), { SSH_AUTH_SOCK: '/agent.sock' })).toMatchObject({
      agent: '/agent.sock',
    });
  });

  it('refuses to go on with neither identity_file nor agent', async () => {
    await expect(resolveAuth(ssh(undefined), { SSH_AUTH_SOCK: '' })).rejects.toThrow(
      /no ssh-agent/,
    );
  });

  it('names an identity_file that cannot be read', async () => {
    const missing = path.join(dir, 'missing');
    await expect(resolveAuth(ssh(missing), {})).rejects.toThrow(`${missing}: ENOENT`);
  });

  it('parses identity_file once for every connection, and again when the file changes', async () => {
    const file = path.join(dir, 'changing');
    copyFileSync(plainKey, file);
    const first = await resolveAuth(ssh(file), {});
    expect((await resolveAuth(ssh(file), {})).key).toBe(first.key);
    const other = path.join(dir, 'other');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other]);
    copyFileSync(other, file);
    // a copy within the same millisecond would keep the stamp: the change is dated apart
    utimesSync(file, new Date(), new Date(Date.now() + 60_000));
    const again = await resolveAuth(ssh(file), {});
    expect(again.key).not.toBe(first.key);
    expect(again.key?.getPublicSSH().toString('base64')).toBe(publicOf(other));
  });

  it('reads an identity_file again after it could not be read', async () => {
    const late = path.join(dir, 'late');
    await expect(resolveAuth(ssh(late), {})).rejects.toThrow(`${late}: ENOENT`);
    copyFileSync(plainKey, late);
    expect((await resolveAuth(ssh(late), {})).key?.getPublicSSH().toString('base64')).toBe(
      publicOf(plainKey),
    );
  });

  it('names an identity_file that is not a private key', async () => {
    const garbage = path.join(dir, 'garbage');
    writeFileSync(garbage, 'not a key');
    await expect(resolveAuth(ssh(garbage), {})).rejects.toThrow(/not a private key/);
  });
});
