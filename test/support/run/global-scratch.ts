import type { TestProject } from 'vitest/node';
import { failOnLeftovers, makeScratchRoot } from './scratch-root.js';

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
  return () => failOnLeftovers(root);
}
