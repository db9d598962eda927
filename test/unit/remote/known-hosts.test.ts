import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostMatches } from '../../../src/remote/host-patterns.js';
import {
  fingerprint,
  hostToken,
  KnownHosts,
  knownKeyTypes,
  parseKnownHosts,
  verifyHostKey as verifyIn,
} from '../../../src/remote/known-hosts.js';

/** the file as text, compiled the way a connection compiles it */
const verifyHostKey = (text: string, host: string, port: number, key: Buffer) =>
  verifyIn(new KnownHosts(text), host, port, key);

/** Real keys from ssh-keygen, so fingerprints and hashes are checked against OpenSSH itself. */
interface Key {
  readonly type: string;
  readonly base64: string;
  readonly blob: Buffer;
  readonly pubFile: string;
}

let dir: string;
let keyA: Key;
let keyB: Key;
let rsa: Key;
let hashed = 0;

function generate(name: string, type: string): Key {
  const file = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-f', file]);
  const [keyType, base64] = readFileSync(`${file}.pub`, 'utf8').trim().split(' ');
  return {
    type: keyType!,
    base64: base64!,
    blob: Buffer.from(base64!, 'base64'),
    pubFile: `${file}.pub`,
  };
}

/** what `ssh-keygen -H` makes of a plain line */
function hashWithOpenSsh(line: string): string {
  const file = path.join(dir, `hash-${(hashed += 1)}`);
  writeFileSync(file, `${line}\n`);
  // stdio ignored: ssh-keygen warns that the .old backup holds unhashed names
  execFileSync('ssh-keygen', ['-q', '-H', '-f', file], { stdio: 'ignore' });
  return readFileSync(file, 'utf8').trim();
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'known-hosts-'));
  keyA = generate('a', 'ed25519');
  keyB = generate('b', 'ed25519');
  rsa = generate('r', 'rsa');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('verifyHostKey', () => {
  it('accepts a key listed for the host', () => {
    const text = `10.0.1.11 ${keyA.type} ${keyA.base64}\n`;
    expect(verifyHostKey(text, '10.0.1.11', 22, keyA.blob)).toEqual({ ok: true });
  });

  it('refuses a host with no entry as unknown, offering the line to add', () => {
    const verdict = verifyHostKey(
      `other ${keyA.type} ${keyA.base64}\n`,
      '10.0.1.11',
      22,
      keyA.blob,
    );
    expect(verdict).toEqual({
      ok: false,
      reason: 'unknown',
      fingerprint: expect.stringMatching(/^SHA256:/) as unknown,
      line: `10.0.1.11 ssh-ed25519 ${keyA.base64}`,
    });
  });

  it('refuses a different key for a known host as changed', () => {
    const text = `web ${keyA.type} ${keyA.base64}\n`;
    expect(verifyHostKey(text, 'web', 22, keyB.blob)).toMatchObject({
      ok: false,
      reason: 'changed',
    });
  });

  it('accepts a name from a comma-separated list', () => {
    const text = `web-1,10.0.1.11,web-2 ${keyA.type} ${keyA.base64}\n`;
    expect(verifyHostKey(text, '10.0.1.11', 22, keyA.blob)).toEqual({ ok: true });
  });

  it('accepts an entry hashed by ssh-keygen -H', () => {
    const text = hashWithOpenSsh(`10.0.1.11 ${keyA.type} ${keyA.base64}`);
    expect(text).toMatch(/^\|1\|/);
    expect(verifyHostKey(text, '10.0.1.11', 22, keyA.blob)).toEqual({ ok: true });
  });

  it('does not accept a hashed entry for another name', () => {
    const text = hashWithOpenSsh(`10.0.1.12 ${keyA.type} ${keyA.base64}`);
    expect(verifyHostKey(text, '10.0.1.11', 22, keyA.blob)).toMatchObject({ reason: 'unknown' });
  });

  it('accepts a hashed [host]:port entry for a non-standard port', () => {
    const text = hashWithOpenSsh(`[10.0.1.11]:2222 ${keyA.type} ${keyA.base64}`);
    expect(verifyHostKey(text, '10.0.1.11', 2222, keyA.blob)).toEqual({ ok: true });
  });

  it('requires the [host]:port form when the port is not 22', () => {
    const text = `10.0.1.11 ${keyA.type} ${keyA.base64}\n`;
    const verdict = verifyHostKey(text, '10.0.1.11', 2222, keyA.blob);
    expect(verdict).toMatchObject({ ok: false, reason: 'unknown' });
    expect(verdict.ok === false && verdict.line).toBe(
      `[10.0.1.11]:2222 ssh-ed25519 ${keyA.base64}`,
    );
  });

  it('does not accept a [host]:port entry for port 22', () => {
    const text = `[10.0.1.11]:2222 ${keyA.type} ${keyA.base64}\n`;
    expect(verifyHostKey(text, '10.0.1.11', 22, keyA.blob)).toMatchObject({ reason: 'unknown' });
  });

  it('refuses a key marked @revoked even when another line accepts it', () => {
    const text = `web ${keyA.type} ${keyA.base64}\n@revoked * ${keyA.type} ${keyA.base64}\n`;
    expect(verifyHostKey(text, 'web', 22, keyA.blob)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
  });

  it('ignores @cert-authority lines: they neither accept nor make a key look changed', () => {
    const text = `@cert-authority * ${keyA.type} ${keyA.base64}\n`;
    expect(verifyHostKey(text, 'web', 22, keyA.blob)).toMatchObject({
      ok: false,
      reason: 'unknown',
    });
    expect(verifyHostKey(text, 'web', 22, keyB.blob)).toMatchObject({
      ok: false,
      reason: 'unknown',
    });
  });

  it('matches wildcards and honours a negated name', () => {
    const text = `10.0.1.*,!10.0.1.13 ${keyA.type} ${keyA.base64}\n`;
    expect(verifyHostKey(text, '10.0.1.12', 22, keyA.blob)).toEqual({ ok: true });
    expect(verifyHostKey(text, '10.0.1.13', 22, keyA.blob)).toMatchObject({ reason: 'unknown' });
  });

  it('matches host names case-insensitively', () => {
    const text = `Web-1.Example.COM ${keyA.type} ${keyA.base64}\n`;
    expect(verifyHostKey(text, 'web-1.example.com', 22, keyA.blob)).toEqual({ ok: true });
  });

  it('accepts any of several keys listed for the host', () => {
    const text = `web ${rsa.type} ${rsa.base64}\nweb ${keyA.type} ${keyA.base64}\n`;
    expect(verifyHostKey(text, 'web', 22, keyA.blob)).toEqual({ ok: true });
  });

  it('does not trust a line under an unknown marker', () => {
    const text = `@trusted web ${keyA.type} ${keyA.base64}\n`;
    expect(verifyHostKey(text, 'web', 22, keyA.blob)).toMatchObject({ reason: 'unknown' });
  });
});

describe('parseKnownHosts', () => {
  it('skips comments, blank and truncated lines and keeps line numbers', () => {
    const text = `# comment\n\nweb ssh-ed25519\nweb ${keyA.type} ${keyA.base64} a comment\n`;
    expect(parseKnownHosts(text)).toEqual([
      { marker: undefined, hosts: 'web', keyType: keyA.type, key: keyA.blob, lineNumber: 4 },
    ]);
  });
});

describe('fingerprint', () => {
  it('equals what ssh-keygen -lf prints', () => {
    const printed = execFileSync('ssh-keygen', ['-lf', keyA.pubFile]).toString().split(' ')[1];
    expect(fingerprint(keyA.blob)).toBe(printed);
  });
});

describe('hostToken and hostMatches', () => {
  it('uses the bare name on port 22 and [name]:port elsewhere', () => {
    expect([hostToken('Web', 22), hostToken('web', 2222)]).toEqual(['web', '[web]:2222']);
  });

  it('does not let a dot in a pattern match any character', () => {
    expect(hostMatches('10.0.1.1', '10a0b1c1')).toBe(false);
  });
});

describe('knownKeyTypes', () => {
  it('lists the key types known for the host, without revoked or CA lines', () => {
    const text = [
      `web ${rsa.type} ${rsa.base64}`,
      `web ${keyA.type} ${keyA.base64}`,
      `@revoked web ecdsa-sha2-nistp256 ${keyB.base64}`,
      `other ${keyA.type} ${keyA.base64}`,
    ].join('\n');
    expect(knownKeyTypes(new KnownHosts(text), 'web', 22)).toEqual(['ssh-rsa', 'ssh-ed25519']);
  });
});

describe('KnownHosts', () => {
  it('finds for each host the lines a parse and match of every line finds, in file order', () => {
    const text = [
      `web ${keyA.type} ${keyA.base64}`,
      `10.0.1.*,!10.0.1.13 ${keyA.type} ${keyA.base64}`,
      `WEB,db ${rsa.type} ${rsa.base64}`,
      hashWithOpenSsh(`db ${keyB.type} ${keyB.base64}`),
      `@revoked * ${keyB.type} ${keyB.base64}`,
      `[10.0.1.13]:2222,10.0.1.13 ${keyB.type} ${keyB.base64}`,
      `d? ${keyA.type} ${keyA.base64}`,
      `web ${keyB.type} ${keyB.base64}`,
    ].join('\n');
    const known = new KnownHosts(text);
    const tokens = ['web', 'db', 'dc', '10.0.1.12', '10.0.1.13', '[10.0.1.13]:2222', 'none'];
    for (const token of tokens) {
      const lines = known.entriesFor(token).map((e) => e.lineNumber);
      const expected = parseKnownHosts(text)
        .filter((e) => hostMatches(e.hosts, token))
        .map((e) => e.lineNumber);
      expect({ token, lines }).toEqual({ token, lines: expected });
    }
    expect(known.entriesFor('web').map((e) => e.lineNumber)).toEqual([1, 3, 5, 8]);
  });
});
