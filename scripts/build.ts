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
      // CommonJS dependencies (ssh2) expect require and __dirname inside an ES module bundle
      js: [
        '#!/usr/bin/env node',
        "import { createRequire as __hRequire } from 'node:module';",
        "import { fileURLToPath as __hPath } from 'node:url';",
        "import { dirname as __hDir } from 'node:path';",
        'const require = __hRequire(import.meta.url);',
        'const __filename = __hPath(import.meta.url);',
        'const __dirname = __hDir(__filename);',
      ].join('\n'),
    },
  });
  return bundlePath;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildBundle();
  console.log(bundlePath);
}
