import { createHash } from 'node:crypto';
import { compileHostPatterns, isPlainName, type HostMatcher } from './host-patterns.js';

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

/**
 * A parsed known_hosts with its patterns compiled, asked once per host: a
 * fleet of hundreds connects to every host, and parsing the file and
 * compiling its globs for each one made that quadratic. Lines whose names
 * are all plain (no wildcard, hash or negation) are found by name; the rest
 * are matched in turn.
 */
export class KnownHosts {
  private readonly byName = new Map<string, KnownHostEntry[]>();
  private readonly patterned: { readonly entry: KnownHostEntry; readonly matches: HostMatcher }[] =
    [];

  constructor(text: string) {
    for (const entry of parseKnownHosts(text)) {
      const patterns = entry.hosts.split(',');
      if (patterns.every(isPlainName)) {
        for (const name of new Set(patterns.map((p) => p.toLowerCase())))
          this.byName.set(name, [...(this.byName.get(name) ?? []), entry]);
      } else this.patterned.push({ entry, matches: compileHostPatterns(entry.hosts) });
    }
  }

  /** the lines that name this host (`hostToken`), in file order */
  entriesFor(token: string): KnownHostEntry[] {
    const named = this.byName.get(token) ?? [];
    const patterned = this.patterned.filter((p) => p.matches(token)).map((p) => p.entry);
    if (patterned.length === 0) return named;
    return [...named, ...patterned].sort((a, b) => a.lineNumber - b.lineNumber);
  }
}

/** Key types the file knows for this host, in file order (for host-key algorithm preference). */
export function knownKeyTypes(known: KnownHosts, host: string, port: number): string[] {
  const types = known
    .entriesFor(hostToken(host, port))
    .filter((e) => e.marker === undefined)
    .map((e) => e.keyType);
  return [...new Set(types)];
}

export function verifyHostKey(
  known: KnownHosts,
  host: string,
  port: number,
  keyBlob: Buffer,
): HostKeyVerdict {
  const token = hostToken(host, port);
  const forHost = known.entriesFor(token);
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
