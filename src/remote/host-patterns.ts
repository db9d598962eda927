import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The names of one known_hosts line as OpenSSH matches them: comma-listed,
 * `*`/`?` wildcards, `!` negation (a negated hit refuses the line whatever
 * else matches), hashed `|1|salt|hash` names. Compiled once per line: a fleet
 * of hundreds asks every line for every host.
 */
export type HostMatcher = (token: string) => boolean;

export function compileHostPatterns(hosts: string): HostMatcher {
  const compiled = hosts.split(',').map((pattern) => {
    const negated = pattern.startsWith('!');
    const body = negated ? pattern.slice(1) : pattern;
    const hit: HostMatcher = body.startsWith('|1|')
      ? (token) => hashedMatches(body, token)
      : globMatcher(body);
    return { negated, hit };
  });
  return (token) => {
    let matched = false;
    for (const { negated, hit } of compiled) {
      if (!hit(token)) continue;
      if (negated) return false;
      matched = true;
    }
    return matched;
  };
}

export function hostMatches(hosts: string, token: string): boolean {
  return compileHostPatterns(hosts)(token);
}

/** a name that only equals itself (case aside): no wildcard, negation or hash */
export function isPlainName(pattern: string): boolean {
  return !/[*?!]/.test(pattern) && !pattern.startsWith('|1|');
}

function hashedMatches(hashed: string, token: string): boolean {
  const [, , salt, hash] = hashed.split('|');
  if (salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = createHmac('sha1', Buffer.from(salt, 'base64')).update(token).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function globMatcher(pattern: string): HostMatcher {
  const escaped = pattern
    .toLowerCase()
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replaceAll('*', '.*')
    .replaceAll('?', '.');
  const glob = new RegExp(`^${escaped}$`);
  return (token) => glob.test(token);
}
