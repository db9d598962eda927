import { link, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { VERIFY_TOKEN_FILE } from '../../health/headers.js';

/**
 * The token handoff's checks send beside `x-handoff-verify: 1`, so that a
 * health-library service on a public listener (`statusOnly`) gives them, and
 * no stranger, its detail and its real readiness while drained. It lives in
 * host.state, which containers mount read-only; the first check on a host
 * writes it (temp file, then a link that never replaces: checks at once agree). Never
 * throws: without a token a check still runs, and sees what a stranger sees.
 */
export async function verifyToken(state: string): Promise<string | undefined> {
  const file = path.join(state, VERIFY_TOKEN_FILE);
  const existing = await readToken(file);
  if (existing !== undefined) return existing;
  // node:crypto only here, on a host's first check: loading it costs a tick a sixth of its CPU
  const { randomBytes } = await import('node:crypto');
  const token = randomBytes(32).toString('hex');
  const temp = path.join(
    state,
    `.${VERIFY_TOKEN_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    // readable by the service, which may run as another user in a container
    await writeFile(temp, `${token}\n`, { mode: 0o644, flag: 'wx' });
    // a link never replaces a file: the first check's token stands, whole, for every other
    await link(temp, file);
    return token;
  } catch (error) {
    // another check wrote it first; no host.state (yet), or a full or read-only one: none
    return (error as NodeJS.ErrnoException).code === 'EEXIST' ? readToken(file) : undefined;
  } finally {
    await rm(temp, { force: true });
  }
}

async function readToken(file: string): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const token = text.trim();
  return /^[0-9a-f]{64}$/.test(token) ? token : undefined;
}
