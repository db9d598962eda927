import type { TestProject } from 'vitest/node';
import { describeLeftovers, leftovers, makeScratchRoot, sweep } from './scratch-root.js';

declare module 'vitest' {
  export interface ProvidedContext {
    scratchRoot: string;
  }
}

/**
 * The unit run's scratch root: every test file's temp directories and the
 * processes they start live under it (test/support/run/use-scratch.ts points
 * TMPDIR there). When the run ends, anything still there fails it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await makeScratchRoot(project.name);
  project.provide('scratchRoot', root);
  return async () => {
    const found = await leftovers(root);
    await sweep(root, found);
    const problem = describeLeftovers(root, found);
    if (!problem) return;
    // a throw here is printed as "error during close" but leaves the exit code 0
    console.error(problem);
    process.exitCode = 1;
  };
}
