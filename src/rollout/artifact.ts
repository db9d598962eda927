import type { Stats } from 'node:fs';
import { access, constants, mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LocalArtifact } from '../agent-client/host-agent.js';
import type { Config } from '../config/types.js';
import { UsageError } from '../errors.js';
import { fileSha256 } from '../host/release-files.js';
import { packDirectory } from './pack-dir.js';

export const ARTIFACT_EXTENSIONS = ['.tar.gz', '.tgz'] as const;

/** deflate's largest expansion (zlib's technical details: 1032:1) */
const MAX_DEFLATE_RATIO = 1032;

/** `--artifact` wins over `rollout.artifact`; neither: nothing to ship. */
export async function readRolloutArtifact(
  config: Config,
  release: string,
  flag: string | undefined,
): Promise<ReadArtifact | undefined> {
  const named = namedArtifact(config, release, flag);
  return named && readArtifact(named.file, named.flag);
}

/** The file `--artifact` or `rollout.artifact` names for `release`, and which of them named it. */
function namedArtifact(
  config: Config,
  release: string,
  flag: string | undefined,
): { file: string; flag: string } | undefined {
  const template = flag ?? config.rollout.artifact;
  if (template === undefined) return undefined;
  return { file: artifactPath(template, release), flag: flag ? '--artifact' : 'rollout.artifact' };
}

/** `rollout.artifact` names one file per release: `dist/app-{release}.tgz`. */
export function artifactPath(template: string, release: string): string {
  return template.replaceAll('{release}', release);
}

export interface ReadArtifact extends LocalArtifact {
  /** removes what reading made (a directory's tarball); the artifact itself stays */
  cleanup(): Promise<void>;
}

/**
 * The artifact as every host will get it, read once before any host is
 * touched: a `.tar.gz` / `.tgz` as it is, a directory packed with tar
 * (sorted, so the same files give the same sha256 and a host that has them
 * is skipped). Anything else is a usage error.
 */
export async function readArtifact(file: string, flag = '--artifact'): Promise<ReadArtifact> {
  const info = await checkArtifactPath(file, flag);
  if (info.isDirectory()) {
    const dir = await mkdtemp(path.join(tmpdir(), 'handoff-artifact-'));
    const cleanup = () => rm(dir, { recursive: true, force: true });
    try {
      const packed = path.join(dir, 'release.tgz');
      await packDirectory(file, packed, flag);
      return { path: packed, ...(await measured(packed)), cleanup };
    } catch (error) {
      await cleanup();
      throw error;
    }
  }
  return { path: file, ...(await measured(file)), cleanup: () => Promise.resolve() };
}

/**
 * The cheap half of reading an artifact, run before the fleet lease is taken
 * too, so a path that cannot be one is one line (exit 2) and nothing else:
 * it exists, this user can read it, and it is a directory or a .tar.gz/.tgz file.
 */
export async function checkArtifactPath(file: string, flag = '--artifact'): Promise<Stats> {
  const bad = (why: string) => new UsageError(`${flag} ${file}: ${why}`);
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw bad(
      `${error.code === 'ENOENT' ? 'no such file or directory' : (error.code ?? String(error))}`,
    );
  });
  await access(file, constants.R_OK | (info.isDirectory() ? constants.X_OK : 0)).catch(() => {
    throw bad('not readable by this user');
  });
  if (info.isDirectory()) return info;
  if (!info.isFile()) throw bad('neither a file nor a directory');
  if (!ARTIFACT_EXTENSIONS.some((ext) => file.endsWith(ext)))
    throw bad('expected a .tar.gz or .tgz file, or a directory');
  return info;
}

/** `checkArtifactPath` of the artifact a rollout of `release` would ship, if any. */
export async function checkRolloutArtifact(
  config: Config,
  release: string,
  flag: string | undefined,
): Promise<void> {
  const named = namedArtifact(config, release, flag);
  if (named) await checkArtifactPath(named.file, named.flag);
}

/** Its sha256 and size, and what it extracts to (at least its own size). */
async function measured(
  file: string,
): Promise<{ sha256: string; bytes: number; unpackedBytes: number }> {
  const { sha256, bytes } = await fileSha256(file);
  return { sha256, bytes, unpackedBytes: Math.max(bytes, await gzipSize(file, bytes)) };
}

/**
 * The uncompressed size a gzip file's trailer records (ISIZE: its last four
 * bytes, modulo 4 GiB): about what the tar extracts to. 0 when it is no gzip.
 */
async function gzipSize(file: string, bytes: number): Promise<number> {
  if (bytes < 18) return 0;
  const handle = await open(file, 'r');
  try {
    const [head, tail] = [Buffer.alloc(2), Buffer.alloc(4)];
    await handle.read(head, 0, 2, 0);
    if (head[0] !== 0x1f || head[1] !== 0x8b) return 0;
    await handle.read(tail, 0, 4, bytes - 4);
    const size = tail.readUInt32LE(0);
    // deflate expands at most ~1032:1: a larger figure is no trailer (a truncated file's
    // last bytes), and an estimate taken from it would refuse a rollout for room it never needs
    return size > bytes * MAX_DEFLATE_RATIO ? 0 : size;
  } finally {
    await handle.close();
  }
}
