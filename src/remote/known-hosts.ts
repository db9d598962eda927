import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * OpenSSH known_hosts, read the way `ssh -o StrictHostKeyChecking=yes` reads it:
 * plain and comma-listed names with `*`/`?` wildcards and `!` negation, hashed
 * `|1|salt|hash` names, `[host]:port` for ports other than 22, and markers.
 * A key that matches nothing is refused: accepting it silently is exactly the
 * man-in-the-middle the file exists to stop.
 */

export interface KnownHostEntry {
  readonly marker: 'revoked' | 'cert-authority' | undefined;
  readonly hosts: string;
  readonly keyType: string;
  readonly key: Buffer;
  /** 1-based, for messages */
  readonly lineNumber: number;
}

export type HostKeyVerdict =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly reason: 'unknown' | 'changed' | 'revoked';
      /** of the offered key, as `ssh-keygen -lf` prints it */
      readonly fingerprint: string;
      /** the known_hosts line that would accept the offered key */
      readonly line: string;
    };

export function parseKnownHosts(text: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  text.split('\n').forEach((raw, index) => {
    const fields = raw.trim().split(/\s+/);
    const first = fields[0] ?? '';
    if (first === '' || first.startsWith('#')) return;
    const marker =
      first === '@revoked' ? 'revoked' : first === '@cert-authority' ? 'cert-authority' : undefined;
    // an unknown marker must not fall through and turn its key into a trusted one
    if (first.startsWith('@') && marker === undefined) return;
    const [hosts, keyType, base64] = marker ? fields.slice(1) : fields;
    if (hosts === undefined || keyType === undefined || base64 === undefined) return;
    const key = Buffer.from(base64, 'base64');
    if (key.length === 0) return;
    entries.push({ marker, hosts, keyType, key, lineNumber: index + 1 });
  });
  return entries;
}

/** The name OpenSSH looks up: `host` on port 22, `[host]:port` elsewhere. */
export function hostToken(host: string, port: number): string {
  const name = host.toLowerCase();
  return port === 22 ? name : `[${name}]:${port}`;
}

export function hostMatches(hosts: string, token: string): boolean {
  let matched = false;
  for (const pattern of hosts.split(',')) {
    const negated = pattern.startsWith('!');
    const body = negated ? pattern.slice(1) : pattern;
    const hit = body.startsWith('|1|') ? hashedMatches(body, token) : globMatches(body, token);
    if (hit && negated) return false;
    if (hit) matched = true;
  }
  return matched;
}

function hashedMatches(hashed: string, token: string): boolean {
  const [, , salt, hash] = hashed.split('|');
  if (salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = createHmac('sha1', Buffer.from(salt, 'base64')).update(token).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function globMatches(pattern: string, token: string): boolean {
  const escaped = pattern
    .toLowerCase()
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replaceAll('*', '.*')
    .replaceAll('?', '.');
  return new RegExp(`^${escaped}$`).test(token);
}

/** `SHA256:…` without padding, the form `ssh-keygen -lf` and `ssh` print. */
export function fingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The algorithm name inside an SSH public key blob (its first string). */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const length = keyBlob.readUInt32BE(0);
  return keyBlob.subarray(4, 4 + length).toString('latin1');
}

/** Key types the file knows for this host, in file order (for host-key algorithm preference). */
export function knownKeyTypes(text: string, host: string, port: number): string[] {
  const token = hostToken(host, port);
  const types = parseKnownHosts(text)
    .filter((e) => e.marker === undefined && hostMatches(e.hosts, token))
    .map((e) => e.keyType);
  return [...new Set(types)];
}

export function verifyHostKey(
  knownHostsText: string,
  host: string,
  port: number,
  keyBlob: Buffer,
): HostKeyVerdict {
  const token = hostToken(host, port);
  const forHost = parseKnownHosts(knownHostsText).filter((e) => hostMatches(e.hosts, token));
  const same = (e: KnownHostEntry): boolean => e.key.equals(keyBlob);
  const refuse = (reason: 'unknown' | 'changed' | 'revoked'): HostKeyVerdict => ({
    ok: false,
    reason,
    fingerprint: fingerprint(keyBlob),
    line: `${token} ${keyTypeOf(keyBlob)} ${keyBlob.toString('base64')}`,
  });
  if (forHost.some((e) => e.marker === 'revoked' && same(e))) return refuse('revoked');
  const plain = forHost.filter((e) => e.marker === undefined);
  if (plain.some(same)) return { ok: true };
  // certificates are not used here, so a CA line neither accepts nor accuses a key
  return refuse(plain.length > 0 ? 'changed' : 'unknown');
}
