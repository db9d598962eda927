import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processesInside } from '../scratch.js';

/**
 * What a test run left behind under its own scratch root: directories, and
 * processes whose working directory or command line is inside it (a service a
 * fixture started and never stopped).
 */
export interface Leftovers {
  readonly dirs: readonly string[];
  readonly processes: readonly { pid: number; what: string }[];
}

/**
 * Tools' caches in TMPDIR, not a test's: tsx's transform cache (tsx-<uid>),
 * and node's module compile cache that npm and npx turn on (node-compile-cache).
 */
const toolCaches = /^(tsx-\d+|node-compile-cache)$/;

/** One root per run, so two runs on one machine never judge each other's files. */
export async function makeScratchRoot(name: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `handoff-${name}-`));
}

/**
 * What is left under `root`; `alsoWatched` are directories whose processes
 * count too but which may stay (a lab's work dir at a fixed path, reused by the
 * next run and cleaned by the lab itself when it starts again).
 */
export async function leftovers(
  root: string,
  alsoWatched: readonly string[] = [],
): Promise<Leftovers> {
  const dirs = (await readdir(root).catch(() => []))
    .filter((entry) => !toolCaches.test(entry))
    .map((entry) => path.join(root, entry));
  return { dirs, processes: await processesInside([root, ...alsoWatched]) };
}

/** Stop what outlived the run, then remove the root: the machine is left as it was found. */
export async function sweep(root: string, found: Leftovers): Promise<void> {
  for (const { pid } of found.processes) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await rm(root, { recursive: true, force: true });
}

export function describeLeftovers(root: string, found: Leftovers): string | undefined {
  if (found.dirs.length === 0 && found.processes.length === 0) return undefined;
  const lines = [
    `the test run left things behind under ${root} (every fixture must stop what it started and remove what it made):`,
    ...found.processes.map(({ pid, what }) => `  process ${pid}: ${what}`),
    ...found.dirs.map((dir) => `  directory ${dir}`),
  ];
  return lines.join('\n');
}

/**
 * The run's end: sweep what was left and fail the run, naming each, if
 * anything was. A throw in a global teardown is printed as "error during
 * close" but leaves the exit code 0, hence the exit code set here.
 */
export async function failOnLeftovers(
  root: string,
  alsoWatched: readonly string[] = [],
): Promise<void> {
  const found = await leftovers(root, alsoWatched);
  await sweep(root, found);
  const problem = describeLeftovers(root, found);
  if (!problem) return;
  console.error(problem);
  process.exitCode = 1;
}
