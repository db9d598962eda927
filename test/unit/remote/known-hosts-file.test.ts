import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { KnownHostsFiles } from '../../../src/remote/known-hosts-file.js';

let dir: string;
const KEY = 'AAAAC3NzaC1lZDI1NTE5AAAAIEjXwB0dL3k0b1pWQ0cJ2fVzRZ0m1h3kq0x8m3yq9cQk';

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'known-hosts-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hostsOf = async (files: KnownHostsFiles, file: string, token: string) =>
  (await files.read(file)).entriesFor(token).map((e) => e.hosts);

describe('KnownHostsFiles', () => {
  it('reads an unchanged file once for every connection', async () => {
    const file = path.join(dir, 'once');
    writeFileSync(file, `web ssh-ed25519 ${KEY}\n`);
    const files = new KnownHostsFiles();
    const [first, ...rest] = await Promise.all([1, 2, 3].map(() => files.read(file)));
    for (const other of rest) expect(other).toBe(first);
    expect(await files.read(file)).toBe(first);
    expect(first?.entriesFor('web')).toHaveLength(1);
  });

  it('reads the file again once it changed, and sees the new line', async () => {
    const file = path.join(dir, 'changes');
    writeFileSync(file, `web ssh-ed25519 ${KEY}\n`);
    const files = new KnownHostsFiles();
    expect(await hostsOf(files, file, 'db')).toEqual([]);
    writeFileSync(file, `web ssh-ed25519 ${KEY}\ndb ssh-ed25519 ${KEY}\n`);
    expect(await hostsOf(files, file, 'db')).toEqual(['db']);
  });

  it('reads a rewrite of the same size again when its mtime moved', async () => {
    const file = path.join(dir, 'same-size');
    writeFileSync(file, `aaa ssh-ed25519 ${KEY}\n`);
    utimesSync(file, 1_000, 1_000);
    const files = new KnownHostsFiles();
    expect(await hostsOf(files, file, 'aaa')).toEqual(['aaa']);
    writeFileSync(file, `bbb ssh-ed25519 ${KEY}\n`);
    utimesSync(file, 2_000, 2_000);
    expect(await hostsOf(files, file, 'bbb')).toEqual(['bbb']);
  });

  it('takes a missing file as an empty one', async () => {
    const files = new KnownHostsFiles();
    expect(await hostsOf(files, path.join(dir, 'missing'), 'web')).toEqual([]);
  });

  it('refuses a file it cannot read, naming it', async () => {
    const files = new KnownHostsFiles();
    await expect(files.read(dir)).rejects.toThrow(UsageError);
    await expect(files.read(dir)).rejects.toThrow(`cannot read ssh.known_hosts ${dir}`);
  });
});
