import { createHash } from 'node:crypto';
import type { Transport } from '../remote/transport.js';
import type { SetupFile } from './setup-files.js';

export const sha = (content: string | Buffer): string =>
  createHash('sha256').update(content).digest('hex');

/**
 * What each file on the host is now, as `<sha256> <mode>` keyed by path:
 * `sha256sum` and `stat` answer for the files that exist; the missing ones
 * simply get no line. The mode counts: a host config someone made
 * world-readable is written again with its own.
 */
export async function remoteState(
  t: Transport,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const [sums, modes] = await Promise.all([
    t.exec(['sha256sum', '--', ...paths]),
    t.exec(['stat', '-c', '%a %n', '--', ...paths]),
  ]);
  const hashes = linesOf(sums.stdout, /^([0-9a-f]{64})\s+\*?(.+)$/);
  const perms = linesOf(modes.stdout, /^([0-7]{3,4}) (.+)$/);
  return new Map([...hashes].map(([path, hash]) => [path, `${hash} ${perms.get(path) ?? '?'}`]));
}

function linesOf(stdout: string, pattern: RegExp): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const m = pattern.exec(line.trim());
    if (m?.[1] && m[2]) found.set(m[2], m[1]);
  }
  return found;
}

export const stateOf = (f: SetupFile): string => `${sha(f.content)} ${f.mode.toString(8)}`;

export async function staleFiles(
  transport: Transport,
  files: readonly SetupFile[],
): Promise<SetupFile[]> {
  const now = await remoteState(
    transport,
    files.map((f) => f.path),
  );
  return files.filter((f) => now.get(f.path) !== stateOf(f));
}
