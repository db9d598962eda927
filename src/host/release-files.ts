import { createHash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { OperationError, UsageError } from '../errors.js';
import { ENV_NAME } from '../config/kit/names.js';
import { composeFilePath, releaseDir } from './layout.js';
import type { EnvVars } from './release-env.js';

/**
 * Files the orchestrator sends with a release (compose: the compose file as
 * `compose.yml`), each with the sha256 of its bytes as read there. The host
 * refuses a file whose bytes do not hash to it, and checks again what it wrote.
 */
export interface ReleaseFile {
  readonly name: string;
  readonly content: string;
  readonly sha256: string;
}

/** A file's sha256 and size, streamed: an artifact of many MB is never held in memory. */
export async function fileSha256(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** far above any compose file or .env: what a release file larger than this holds is not ours */
const OWN_FILE_MAX = 4 * 1024 * 1024;

/**
 * One of handoff's own files in a release (`compose.yml`, `.env`, the
 * recorded sha256), or undefined when there is none. An artifact may have put
 * anything under such a name: a symlink is refused without being followed
 * (`.env -> /dev/zero` once grew the agent to 536 MB), a FIFO is opened without
 * waiting for a writer and refused (it hung a prune that held the host lock),
 * and so is anything but a regular file of a sane size.
 */
export async function readOwnFile(file: string): Promise<Buffer | undefined> {
  const handle = await open(
    file,
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  ).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    if (error.code === 'ELOOP')
      throw new OperationError(`${file} is a symlink, not a file handoff wrote; remove it`);
    throw error;
  });
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw new OperationError(`${file} is not a regular file, not one handoff wrote; remove it`);
    if (info.size > OWN_FILE_MAX)
      throw new OperationError(
        `${file} is ${info.size} bytes, not a file handoff wrote; remove it`,
      );
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

export function releaseFile(name: string, content: string): ReleaseFile {
  return { name, content, sha256: sha256(content) };
}

/**
 * The publish document: `{"files": [{name, content, sha256}], "env": {NAME: value}}`;
 * empty text: no files. `env` holds the operator's variables of the release's
 * `.env`, secrets included: it travels on the SSH channel's stdin, never in an
 * argv a process list would show.
 */
export function encodePublish(files: readonly ReleaseFile[], env: EnvVars = {}): string {
  return JSON.stringify(Object.keys(env).length ? { files, env } : { files });
}

export interface PublishDocument {
  readonly files: ReleaseFile[];
  readonly env: Record<string, string>;
}

export function decodePublish(text: string): PublishDocument {
  if (!text.trim()) return { files: [], env: {} };
  const doc = JSON.parse(text) as { files?: unknown; env?: unknown };
  if (!Array.isArray(doc.files))
    throw new UsageError('publish: the document must be {"files": [...]}');
  const files = doc.files.map((f: unknown) => {
    const r = (typeof f === 'object' && f !== null ? f : {}) as Record<string, unknown>;
    if (typeof r.name !== 'string' || typeof r.content !== 'string' || typeof r.sha256 !== 'string')
      throw new UsageError('publish: each file needs name, content and sha256');
    if (sha256(r.content) !== r.sha256)
      throw new OperationError(
        `publish: ${r.name} arrived with sha256 ${sha256(r.content)}, sent as ${r.sha256}; nothing was written`,
      );
    return { name: r.name, content: r.content, sha256: r.sha256 };
  });
  return { files, env: decodeEnv(doc.env) };
}

function decodeEnv(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  const entries = typeof value === 'object' && value !== null ? Object.entries(value) : [];
  // names only in the message: the values may be secrets
  if (entries.length === 0 || entries.some(([n, v]) => typeof v !== 'string' || !ENV_NAME.test(n)))
    throw new UsageError('publish: env must map variable names to text');
  return Object.fromEntries(entries);
}

/** After writing: each file on disk must hash to what was sent. */
export async function checkWritten(
  root: string,
  release: string,
  files: readonly ReleaseFile[],
): Promise<void> {
  for (const f of files) {
    const onDisk = sha256(
      (await readOwnFile(path.join(releaseDir(root, release), f.name))) ?? Buffer.alloc(0),
    );
    if (onDisk !== f.sha256)
      throw new OperationError(
        `publish: ${f.name} of release ${release} hashes to ${onDisk} on this host, not ${f.sha256}`,
      );
  }
}

/** The sha256 of a published release's compose.yml, or null without one. */
export async function composeSha256(root: string, release: string): Promise<string | null> {
  const bytes = await readOwnFile(composeFilePath(root, release)).catch(() => undefined);
  return bytes ? sha256(bytes) : null;
}
