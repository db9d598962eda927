import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Temp directories a test file made through its fixtures, removed (with any
 * process still running inside them) when the file ends. The unit project's
 * setup file (test/support/run/use-scratch.ts) runs `removeScratch` after each
 * file; the global teardown fails the run if anything else outlives it.
 */
const made: string[] = [];

/** A fresh directory under the run's scratch root, removed when the test file ends. */
export async function scratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Stop every process working in, or started from, one of this file's directories, then remove them. */
export async function removeScratch(): Promise<void> {
  const dirs = made.splice(0);
  for (const { pid } of await processesInside(dirs)) stop(pid);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * Processes whose working directory or command line lies inside one of `roots`,
 * or that were started with `TMPDIR` set to one of them (a child of a test, even
 * one working elsewhere, inherits the run's TMPDIR).
 */
export async function processesInside(
  roots: readonly string[],
): Promise<{ pid: number; what: string }[]> {
  if (roots.length === 0) return [];
  const found: { pid: number; what: string }[] = [];
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    const args = (await procText(pid, 'cmdline')).join(' ').trim();
    const env = await procText(pid, 'environ');
    const started = (root: string): boolean =>
      inside(root, cwd) || args.includes(`${root}/`) || args.endsWith(root);
    if (roots.some((root) => started(root) || env.includes(`TMPDIR=${root}`)))
      found.push({ pid, what: args || cwd });
  }
  return found;
}

async function procText(pid: number, file: 'cmdline' | 'environ'): Promise<string[]> {
  return (await readFile(`/proc/${pid}/${file}`, 'utf8').catch(() => '')).split('\0');
}

function inside(root: string, file: string): boolean {
  return file === root || file.startsWith(`${root}/`);
}

function stop(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
