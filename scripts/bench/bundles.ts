import { copyFile, cp, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  agentBundlePath,
  buildBundle,
  bundlePath,
  healthBundlePath,
  probeBundlePath,
  sshCryptoPath,
} from '../build.js';

// BENCH_DIST: a checkout's own copies, when another checkout benches beside it
export const BENCH_DIST_DIR = process.env.BENCH_DIST ?? '/tmp/handoff-bench-dist';
const DIR = BENCH_DIST_DIR;

/** the bench's private copies: the CLI, and beside it the agent it installs */
export const benchCli = path.join(DIR, 'deploy.mjs');
export const benchAgent = path.join(DIR, 'agent', 'deploy.cjs');
/** the health library and the standalone probe, as a service ships them */
export const benchHealth = path.join(DIR, 'health.mjs');
export const benchProbe = path.join(DIR, 'probe.cjs');

/**
 * Build, then copy both bundles out of dist/: other engineers rebuild dist/
 * while a bench runs, and an agent that changes between `deploy setup` and
 * the rollout fails the rollout's agent check.
 */
export async function buildBenchBundles(): Promise<void> {
  await buildBundle();
  await rm(path.dirname(benchAgent), { recursive: true, force: true });
  await mkdir(path.dirname(benchAgent), { recursive: true });
  await copyFile(bundlePath, benchCli);
  await copyFile(healthBundlePath, benchHealth);
  await copyFile(probeBundlePath, benchProbe);
  // ssh2's crypto addon, where the bundle's require finds it (build.ts)
  const addon = path.join(DIR, path.relative(path.dirname(bundlePath), sshCryptoPath));
  await rm(addon, { force: true });
  await mkdir(path.dirname(addon), { recursive: true });
  await copyFile(sshCryptoPath, addon).catch(() => undefined);
  // the agent and the library files beside it
  await cp(path.dirname(agentBundlePath), path.dirname(benchAgent), { recursive: true });
}
