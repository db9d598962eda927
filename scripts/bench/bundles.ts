import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { agentBundlePath, buildBundle, bundlePath } from '../build.js';

const DIR = '/tmp/handoff-bench-dist';

/** the bench's private copies: the CLI, and beside it the agent it installs */
export const benchCli = path.join(DIR, 'deploy.mjs');
export const benchAgent = path.join(DIR, 'agent', 'deploy.cjs');

/**
 * Build, then copy both bundles out of dist/: other engineers rebuild dist/
 * while a bench runs, and an agent that changes between `deploy setup` and
 * the rollout fails the rollout's agent check.
 */
export async function buildBenchBundles(): Promise<void> {
  await buildBundle();
  await mkdir(path.dirname(benchAgent), { recursive: true });
  await copyFile(bundlePath, benchCli);
  await copyFile(agentBundlePath, benchAgent);
}
