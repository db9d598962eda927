import { timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface TokenWatch {
  /** true when `given` is the token in the file; read at most once per `maxAgeMs` */
  matches(given: string | undefined): Promise<boolean>;
}

/** shorter is no token: a file truncated mid-write, or written by hand */
const MIN_LENGTH = 32;
/** all that is ever read of the file */
const MAX_LENGTH = 256;

/**
 * The token that lets handoff's own checks (verify, the watchdog) see a
 * `statusOnly` service's detail and real readiness, which any other client is
 * refused. It lives in host.state, which a stranger on the network cannot
 * read. Strangers can send guesses as fast as they like, so the file is read
 * once per `maxAgeMs` for everyone, and compared in constant time.
 */
export function watchVerifyToken(
  file: string,
  options: { readonly maxAgeMs: number; readonly now: () => number },
): TokenWatch {
  let cached: { token: Buffer | undefined; at: number } | undefined;
  let inFlight: Promise<Buffer | undefined> | undefined;

  const refresh = async (): Promise<Buffer | undefined> => {
    const at = options.now();
    const text = await readFile(file, 'utf8').catch(() => '');
    const token = text.trim();
    const value =
      token.length >= MIN_LENGTH && token.length <= MAX_LENGTH ? Buffer.from(token) : undefined;
    cached = { token: value, at };
    return value;
  };
  const current = (): Promise<Buffer | undefined> => {
    if (cached && options.now() - cached.at < options.maxAgeMs)
      return Promise.resolve(cached.token);
    inFlight ??= refresh().finally(() => (inFlight = undefined));
    return inFlight;
  };

  return {
    async matches(given) {
      if (given === undefined || given.length < MIN_LENGTH || given.length > MAX_LENGTH)
        return false;
      const token = await current();
      const candidate = Buffer.from(given);
      return token !== undefined && token.length === candidate.length
        ? timingSafeEqual(token, candidate)
        : false;
    },
  };
}
