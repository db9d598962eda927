import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, statfs, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OperationError, UsageError } from '../errors.js';
import type { ArtifactState } from '../protocol/results.js';
import type { HostExec } from './exec.js';
import { releaseDir } from './layout.js';
import { strayEntry } from './artifact-entries.js';
import { fileSha256, readOwnFile } from './release-files.js';
import { readLiveRelease } from './releases.js';
import { excerpt } from '../safe-text.js';

/** Beside the release's files: the sha256 of the artifact it was extracted from. */
export const ARTIFACT_SHA_FILE = '.artifact-sha256';

const SHA256 = /^[0-9a-f]{64}$/;
/** what `artifactUploadPath` hands out: the agent refuses to read or delete anything else */
const UPLOAD_NAME = /^\.upload-[A-Za-z0-9._-]{1,128}-[0-9a-f]{12}\.tgz$/;

export function checkSha256(sha: string): string {
  if (!SHA256.test(sha)) throw new UsageError(`--sha256 ${JSON.stringify(sha)}: expected 64 hex`);
  return sha;
}

export async function artifactSha256(root: string, release: string): Promise<string | null> {
  const bytes = await readOwnFile(path.join(releaseDir(root, release), ARTIFACT_SHA_FILE)).catch(
    () => undefined,
  );
  return bytes?.toString('utf8').trim() ?? null;
}

/**
 * Asked before an upload (and in preflight, before any host is drained): the
 * release is there from this very artifact (skip), or where to upload it — a
 * hidden name in `releases/`, on the same filesystem as the release directory
 * it becomes, and never listed as a release — with the room there and whether
 * the install would be refused because that id is live from another build.
 */
export async function artifactState(
  root: string,
  release: string,
  sha: string,
): Promise<ArtifactState> {
  if ((await artifactSha256(root, release)) === sha) return { present: true };
  const releases = path.join(root, 'releases');
  await mkdir(releases, { recursive: true });
  await removeLeftovers(root, Date.now());
  const name = `.upload-${release}-${randomBytes(6).toString('hex')}.tgz`;
  const free = await statfs(releases).then(
    (s) => s.bavail * s.bsize,
    () => undefined,
  );
  const liveOther = (await readLiveRelease(root)) === release;
  return {
    present: false,
    upload: path.join(releases, name),
    ...(free !== undefined && { freeBytes: free }),
    ...(liveOther && { liveOther }),
  };
}

/** names handoff writes into a release itself: never taken from an artifact */
export const RESERVED_NAMES = [ARTIFACT_SHA_FILE, '.env'] as const;

/** hidden names that only exist while an upload, an extract, a publish or a prune runs */
const IN_FLIGHT =
  /^\.(upload-.*\.tgz|.+\.extract-[0-9a-f]{12}(\.old)?|.+\.pruned-\d+|.+\.tmp-\d+)$/;
/** older than any upload or extract can take (the agent's own bound is 10 minutes) */
export const LEFTOVER_AGE_MS = 60 * 60_000;

/**
 * What a dropped connection or a killed agent left in `releases/`: an upload,
 * an extract or a prune that never finished. Removed once it is older than
 * anything in flight can be, so a concurrent upload is never touched.
 */
export async function removeLeftovers(root: string, now: number): Promise<string[]> {
  const leftovers = await findLeftovers(root, now);
  for (const name of leftovers)
    await rm(path.join(root, 'releases', name), { recursive: true, force: true }).catch(
      () => undefined,
    );
  return leftovers;
}

/** The leftovers removeLeftovers would remove now, removing none. */
export async function findLeftovers(root: string, now: number): Promise<string[]> {
  const dir = path.join(root, 'releases');
  const found: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!IN_FLIGHT.test(name)) continue;
    const info = await lstat(path.join(dir, name)).catch(() => undefined);
    if (info && now - info.mtimeMs >= LEFTOVER_AGE_MS) found.push(name);
  }
  return found;
}

/**
 * The uploaded file becomes `releases/<id>/`: its sha256 checked against what
 * the orchestrator read, extracted by the system tar into a hidden directory,
 * then renamed into place, so the release is absent or whole. The upload is
 * deleted whatever happens. A release that is live is never replaced.
 */
export async function installArtifact(
  root: string,
  release: string,
  sha: string,
  upload: string,
  exec: HostExec,
): Promise<{ release: string; sha256: string }> {
  const releases = path.join(root, 'releases');
  if (path.dirname(upload) !== releases || !UPLOAD_NAME.test(path.basename(upload)))
    throw new UsageError(`--file ${JSON.stringify(upload)}: not an upload this agent handed out`);
  const tmp = path.join(releases, `.${release}.extract-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(tmp, { mode: 0o755 });
    // hashed and extracted at once (two readers of one file): nothing is installed
    // before both are done, and a mismatch throws the extracted copy away
    // (both settle before anything is judged: the finally must not remove tmp under tar)
    const [hashed, extracted] = await Promise.allSettled([
      fileSha256(upload),
      // owned by the agent's user, with its umask applied
      exec(['tar', '-xzf', upload, '-C', tmp, '--no-same-owner', '--no-same-permissions'], {
        timeoutMs: 10 * 60_000,
      }),
    ]);
    if (hashed.status === 'rejected')
      throw new OperationError(`artifact upload ${upload} is missing: ${String(hashed.reason)}`);
    if (extracted.status === 'rejected') throw extracted.reason;
    const [onHost, r] = [hashed.value.sha256, extracted.value];
    if (onHost !== sha)
      throw new OperationError(
        `artifact of release ${release} arrived with sha256 ${onHost}, sent as ${sha}; nothing was installed`,
      );
    if (r.code !== 0)
      throw new OperationError(
        `artifact of release ${release} does not extract (tar exit ${r.code}: ${firstLine(r.stderr)}); nothing was installed`,
      );
    // the tarball may hold entries of handoff's own names (a symlink out of releases/,
    // a FIFO as .env): removed, so publish writes its own afresh (O_EXCL follows no link)
    for (const name of RESERVED_NAMES)
      await rm(path.join(tmp, name), { recursive: true, force: true });
    const stray = await strayEntry(tmp);
    if (stray)
      throw new OperationError(
        `artifact of release ${release} holds ${stray}; an artifact may hold only regular files, directories and symlinks that stay inside the release; nothing was installed`,
      );
    // writable by its owner: a read-only directory in the build (a vendored module
    // cache) would make the release impossible to replace or prune (-R follows no link)
    const writable = await exec(['chmod', '-R', 'u+w', '--', tmp], { timeoutMs: 5 * 60_000 });
    if (writable.code !== 0)
      throw new OperationError(
        `artifact of release ${release}: chmod u+w failed (${firstLine(writable.stderr)}); nothing was installed`,
      );
    await writeFile(path.join(tmp, ARTIFACT_SHA_FILE), `${sha}\n`, { mode: 0o644, flag: 'wx' });
    // on disk before the rename: the rename may reach the journal before the data,
    // and a power cut then leaves a release of empty files that looks whole
    const synced = await exec(['sync', '-f', '--', tmp], { timeoutMs: 5 * 60_000 });
    if (synced.code !== 0)
      throw new OperationError(
        `artifact of release ${release}: sync failed (${firstLine(synced.stderr)}); nothing was installed`,
      );
    await replaceRelease(root, release, tmp);
    return { release, sha256: sha };
  } finally {
    await rm(upload, { force: true });
    await rm(tmp, { recursive: true, force: true });
  }
}

async function replaceRelease(root: string, release: string, extracted: string): Promise<void> {
  const dir = releaseDir(root, release);
  // what runs must stay what a rollback finds: the live release is never rewritten
  if ((await readLiveRelease(root)) === release)
    throw new OperationError(
      `release ${release} is live on this host from another artifact; ship it under a new release id`,
    );
  const aside = `${extracted}.old`;
  // a release directory from an earlier publish without this artifact: moved aside, then gone
  await rename(dir, aside).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rename(extracted, dir);
  await rm(aside, { recursive: true, force: true });
}

function firstLine(text: string): string {
  return excerpt(text, 200);
}
