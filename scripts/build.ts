import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const bundlePath = path.join(root, 'dist', 'deploy.mjs');

/**
 * One file, the CLI and the host agent alike, so a host runs exactly the
 * orchestrator's version and Node is its only prerequisite.
 */
export async function buildBundle(): Promise<string> {
  await build({
    entryPoints: [path.join(root, 'src', 'cli', 'main.ts')],
    outfile: bundlePath,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    splitting: false,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    // ssh2's optional native addon and its crypto binding are resolved at run time
    external: ['cpu-features', '*.node'],
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __handoffRequire } from 'node:module'; const require = __handoffRequire(import.meta.url);",
    },
  });
  return bundlePath;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildBundle();
  console.log(bundlePath);
}
