import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildBundle } from '../../scripts/build.js';
import { failOnLeftovers, makeScratchRoot } from '../support/run/scratch-root.js';

/** Where the e2e files put their labs: /tmp/handoff-e2e-<subnet>[-…] (each file's own). */
const LAB_DIRS = /^handoff-e2e-/;

/**
 * e2e tests run the real program, as a host runs it: the bundled single file.
 * Like the unit run, the e2e run keeps its temp directories and the processes
 * it starts under one scratch root (use-scratch.ts points TMPDIR there), and
 * names and sweeps what outlives it, with any process still running in a lab's
 * work dir made by this run (a lab not stopped), and fails the run on them.
 * The labs' work dirs stay,
 * at their fixed paths: the lab cleans one when it starts there again.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildBundle();
  const started = Date.now();
  const root = await makeScratchRoot(project.name);
  project.provide('scratchRoot', root);
  return async () => failOnLeftovers(root, await labDirsSince(started));
}

async function labDirsSince(started: number): Promise<string[]> {
  const names = (await readdir('/tmp').catch(() => [])).filter((name) => LAB_DIRS.test(name));
  const dirs = names.map((name) => path.join('/tmp', name));
  const made = await Promise.all(
    dirs.map(async (dir) => ((await stat(dir).catch(() => undefined))?.mtimeMs ?? 0) >= started),
  );
  return dirs.filter((_, i) => made[i]);
}
