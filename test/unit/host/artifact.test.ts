import { randomBytes } from 'node:crypto';
import {
  chmod,
  lstat,
  mkdir,
  readFile,
  readdir,
  rm,
  stat,
  statfs,
  symlink,
  truncate,
  utimes,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  LEFTOVER_AGE_MS,
  artifactState,
  installArtifact,
  removeLeftovers,
} from '../../../src/host/artifact.js';
import { createHostExec } from '../../../src/host/exec.js';
import { sha256 } from '../../../src/host/release-files.js';
import { scratchDir } from '../../support/scratch.js';

let root: string;
let build: string;
const exec = createHostExec();

beforeEach(async () => {
  root = await scratchDir('handoff-artifact-');
  build = path.join(root, 'build');
  await mkdir(build);
  await writeFile(path.join(build, 'app.mjs'), 'console.log("r2")\n');
});

/** the tarball as the orchestrator would ship it, uploaded where the agent said */
async function upload(release: string): Promise<{ file: string; sha: string }> {
  const tgz = path.join(root, 'app.tgz');
  await execa('tar', ['-czf', tgz, '-C', build, '.']);
  const sha = sha256(await readFile(tgz));
  const state = await artifactState(root, release, sha);
  if (state.present) throw new Error('expected no release yet');
  await execa('cp', [tgz, state.upload]);
  return { file: state.upload, sha };
}

const hidden = async () =>
  (await readdir(path.join(root, 'releases'))).filter((n) => n.startsWith('.'));

describe('installArtifact with a hostile or awkward tarball', () => {
  it('never writes its sha256 through a symlink the tarball carries under that name', async () => {
    const outside = path.join(root, 'outside.txt');
    await writeFile(outside, 'precious\n');
    await symlink(outside, path.join(build, '.artifact-sha256'));
    const { file, sha } = await upload('r2');
    await installArtifact(root, 'r2', sha, file, exec);
    expect(await readFile(outside, 'utf8')).toBe('precious\n');
    const recorded = path.join(root, 'releases/r2/.artifact-sha256');
    expect((await lstat(recorded)).isFile()).toBe(true);
    expect(await readFile(recorded, 'utf8')).toBe(`${sha}\n`);
  });

  it('refuses a FIFO, a link out of the release and a dangling link with .., installing nothing', async () => {
    const cases: [string, () => Promise<void>, string][] = [
      [
        'fifo',
        () => execa('mkfifo', [path.join(build, 'pipe')]).then(() => undefined),
        'pipe: a FIFO',
      ],
      [
        'out',
        () => symlink('/etc/passwd', path.join(build, 'passwd')),
        'passwd: a symlink pointing outside the release',
      ],
      [
        'chain',
        async () => {
          // a/up -> .. stays inside; x -> a/up/.. then lands in releases/
          await mkdir(path.join(build, 'a'));
          await symlink('..', path.join(build, 'a', 'up'));
          await symlink('a/up/..', path.join(build, 'x'));
        },
        'x: a symlink pointing outside the release',
      ],
      [
        'dangling',
        () => symlink('../../r9/.env', path.join(build, 'later')),
        'later: a dangling symlink',
      ],
    ];
    for (const [release, plant, why] of cases) {
      await execa('rm', ['-rf', build]);
      await mkdir(build);
      await plant();
      const { file, sha } = await upload(release);
      await expect(installArtifact(root, release, sha, file, exec)).rejects.toThrow(
        `artifact of release ${release} holds ${why}`,
      );
      expect(await readdir(path.join(root, 'releases'))).toEqual([]);
    }
  });

  it('keeps symlinks that stay inside, dangling ones without .. too', async () => {
    await mkdir(path.join(build, 'lib'));
    await symlink('lib', path.join(build, 'current-lib'));
    await symlink('app.mjs', path.join(build, 'main.mjs'));
    await symlink('dist/built.js', path.join(build, 'later.js'));
    const { file, sha } = await upload('r2');
    await installArtifact(root, 'r2', sha, file, exec);
    expect(await readFile(path.join(root, 'releases/r2/main.mjs'), 'utf8')).toContain('r2');
  });

  it("drops the tarball's own .env, a FIFO or a link to /dev/zero: publish writes handoff's", async () => {
    await mkdir(path.join(build, 'sub'));
    for (const [release, plant] of [
      ['r2', () => execa('mkfifo', [path.join(build, '.env')])],
      ['r3', () => symlink('/dev/zero', path.join(build, '.env'))],
    ] as const) {
      await rm(path.join(build, '.env'), { force: true });
      await plant();
      const { file, sha } = await upload(release);
      await installArtifact(root, release, sha, file, exec);
      expect((await readdir(path.join(root, 'releases', release))).sort()).toEqual([
        '.artifact-sha256',
        'app.mjs',
        'sub',
      ]);
    }
  });

  it('syncs the extracted files to disk before the rename makes them the release', async () => {
    const seen: { argv: string[]; released: boolean }[] = [];
    const recording: typeof exec = async (argv, options) => {
      const released = await lstat(path.join(root, 'releases/r2')).then(
        () => true,
        () => false,
      );
      seen.push({ argv: [...argv], released });
      return exec(argv, options);
    };
    const { file, sha } = await upload('r2');
    await installArtifact(root, 'r2', sha, file, recording);
    const sync = seen.find((s) => s.argv[0] === 'sync');
    expect(sync?.argv.slice(0, 3)).toEqual(['sync', '-f', '--']);
    expect(path.basename(sync?.argv[3] ?? '')).toMatch(/^\.r2\.extract-[0-9a-f]{12}$/);
    expect(sync?.released).toBe(false);
  });

  it('leaves a read-only directory of the build writable by its owner, so it can be pruned', async () => {
    await mkdir(path.join(build, 'vendor'));
    await writeFile(path.join(build, 'vendor', 'lib.js'), 'x');
    await chmod(path.join(build, 'vendor'), 0o555);
    const { file, sha } = await upload('r2');
    await installArtifact(root, 'r2', sha, file, exec);
    expect((await stat(path.join(root, 'releases/r2/vendor'))).mode & 0o200).toBe(0o200);
  });
});

describe('leftovers in releases/', () => {
  it('removes uploads, extracts and prunes older than anything in flight, and nothing else', async () => {
    const dir = path.join(root, 'releases');
    await mkdir(path.join(dir, 'r1'), { recursive: true });
    const names = [
      '.upload-r2-0123456789ab.tgz',
      '.r2.extract-0123456789ab',
      '.r1.pruned-4242',
      // a publish killed before its rename: a copy of .env, secrets included
      '.r3.tmp-31337',
      '.keep-me',
    ];
    for (const n of names) await writeFile(path.join(dir, n), 'x');
    await writeFile(path.join(dir, '.upload-r3-abcdefabcdef.tgz'), 'fresh');
    const old = new Date(Date.now() - LEFTOVER_AGE_MS - 60_000);
    for (const n of [...names, 'r1']) await utimes(path.join(dir, n), old, old);
    const removed = await removeLeftovers(root, Date.now());
    expect(removed.sort()).toEqual(names.slice(0, 4).sort());
    expect((await readdir(dir)).sort()).toEqual(['.keep-me', '.upload-r3-abcdefabcdef.tgz', 'r1']);
  });

  it('are cleaned when the next upload is handed out', async () => {
    const dir = path.join(root, 'releases');
    await mkdir(dir, { recursive: true });
    const stale = path.join(dir, '.upload-r1-0123456789ab.tgz');
    await writeFile(stale, 'x'.repeat(1000));
    const old = new Date(Date.now() - LEFTOVER_AGE_MS - 60_000);
    await utimes(stale, old, old);
    await artifactState(root, 'r2', 'f'.repeat(64));
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('installArtifact', () => {
  it('extracts into releases/<id>/ and records the sha256, which then skips the upload', async () => {
    const { file, sha } = await upload('r2');
    await installArtifact(root, 'r2', sha, file, exec);
    expect(await readFile(path.join(root, 'releases/r2/app.mjs'), 'utf8')).toContain('r2');
    expect(await artifactState(root, 'r2', sha)).toEqual({ present: true });
    expect(await hidden()).toEqual([]);
  });

  it('a different artifact for the same release is uploaded again', async () => {
    const { file, sha } = await upload('r2');
    await installArtifact(root, 'r2', sha, file, exec);
    expect((await artifactState(root, 'r2', 'f'.repeat(64))).present).toBe(false);
  });

  it('a truncated tarball leaves no release and no upload behind', async () => {
    await writeFile(path.join(build, 'big.bin'), randomBytes(256 * 1024));
    const { file } = await upload('r3');
    await truncate(file, 2000);
    const sha = sha256(await readFile(file));
    await expect(installArtifact(root, 'r3', sha, file, exec)).rejects.toThrow(/does not extract/);
    expect(await readdir(path.join(root, 'releases'))).toEqual([]);
  });

  it('refuses an upload whose bytes do not hash to what was sent', async () => {
    const { file } = await upload('r2');
    await expect(installArtifact(root, 'r2', 'a'.repeat(64), file, exec)).rejects.toThrow(
      /arrived with sha256 .* sent as a{64}; nothing was installed/,
    );
    expect(await readdir(path.join(root, 'releases'))).toEqual([]);
  });

  it('says, before any upload, how much room releases/ has and that a live id from another build is refused', async () => {
    const fresh = await artifactState(root, 'r2', 'f'.repeat(64));
    expect(fresh).toMatchObject({ present: false });
    const free = fresh.present ? 0 : (fresh.freeBytes ?? 0);
    const fs = await statfs(path.join(root, 'releases'));
    // another process may write meanwhile: about the filesystem's free bytes
    expect(Math.abs(free - fs.bavail * fs.bsize)).toBeLessThan(64 * 1024 * 1024);
    expect(fresh).not.toHaveProperty('liveOther');
    await mkdir(path.join(root, 'releases/r2'), { recursive: true });
    await symlink('releases/r2', path.join(root, 'current'));
    expect(await artifactState(root, 'r2', 'f'.repeat(64))).toMatchObject({
      present: false,
      liveOther: true,
    });
    expect(await artifactState(root, 'r3', 'f'.repeat(64))).not.toHaveProperty('liveOther');
  });

  it('never replaces the live release', async () => {
    await mkdir(path.join(root, 'releases/r2'), { recursive: true });
    await symlink('releases/r2', path.join(root, 'current'));
    const { file, sha } = await upload('r2');
    await expect(installArtifact(root, 'r2', sha, file, exec)).rejects.toThrow(/is live/);
    expect(await readdir(path.join(root, 'releases/r2'))).toEqual([]);
  });

  it('reads and deletes only a file it handed out', async () => {
    const outside = path.join(root, 'important');
    await writeFile(outside, 'x');
    await expect(installArtifact(root, 'r2', 'a'.repeat(64), outside, exec)).rejects.toThrow(
      /not an upload this agent handed out/,
    );
    expect(await readFile(outside, 'utf8')).toBe('x');
  });
});
