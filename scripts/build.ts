import { build, type BuildOptions, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const execFileAsync = promisify(execFile);

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** the CLI: what an operator runs, and e2e tests with it */
export const bundlePath = path.join(root, 'dist', 'deploy.mjs');
/**
 * what `deploy setup` installs on hosts as `host.agent/bin/deploy`
 * (src/cli/agent-bundle.ts finds it beside the CLI)
 */
export const agentBundlePath = path.join(root, 'dist', 'agent', 'deploy.cjs');
/** the health library (src/health) as one ES module with no dependencies, for Node services */
export const healthBundlePath = path.join(root, 'dist', 'health.mjs');
/** the standalone heartbeat probe: `node dist/probe.cjs --dir DIR --max-age 30s` */
export const probeBundlePath = path.join(root, 'dist', 'probe.cjs');

/**
 * packages only the orchestrator uses: SSH to the hosts, and the ALB API; and
 * what no host runs, loaded lazily where it is used: `deploy report`'s page,
 * the fleet lease's etcd client (rollout/lease/stores.ts)
 */
const ORCHESTRATOR_ONLY =
  /^(?:ssh2|@aws-sdk\/.+|\.\.\/report\/report-command\.js|\.\/etcd\/etcd-store\.js)$/;

/**
 * The host agent never opens SSH or calls AWS, yet parsing ssh2 and the AWS
 * SDK was a quarter of every watchdog tick's CPU time (docs/benchmarks.md),
 * once a minute on every host. In the agent they are replaced by a module
 * that says where to run the command instead, should anyone ever reach one.
 */
const orchestratorOnly: Plugin = {
  name: 'orchestrator-only',
  setup(b) {
    b.onResolve({ filter: ORCHESTRATOR_ONLY }, (a) => ({ path: a.path, namespace: 'agent-stub' }));
    b.onLoad({ filter: /.*/, namespace: 'agent-stub' }, (a) => ({
      contents: `throw new Error(${JSON.stringify(
        `${a.path} is not in the host agent: run this command on the machine you deploy from`,
      )});\n// CommonJS, so the named imports of ssh2 bind without a build warning\nmodule.exports = {};`,
      loader: 'js',
    }));
  },
};

const common: BuildOptions = {
  entryPoints: [path.join(root, 'src', 'cli', 'main.ts')],
  bundle: true,
  platform: 'node',
  target: 'node22',
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
};

/** ssh2's crypto addon, where its require (`./crypto/build/Release/…`) looks from the bundle */
export const sshCryptoPath = path.join(
  root,
  'dist',
  'crypto',
  'build',
  'Release',
  'sshcrypto.node',
);

/**
 * The CLI, one file, so Node is the operator's only prerequisite. Beside it,
 * when the install built it, ssh2's optional crypto addon: without it every
 * SSH packet creates its AES-GCM cipher anew in JavaScript, a tenth of a
 * 500-host rollout's CPU (docs/benchmarks.md). ssh2 falls back to that when
 * the addon is missing or does not load, and negotiates the same cipher.
 */
export async function buildCliBundle(): Promise<string> {
  await build({ ...common, outfile: bundlePath });
  const addon = path.join(
    root,
    'node_modules',
    'ssh2',
    'lib',
    'protocol',
    'crypto',
    'build',
    'Release',
    'sshcrypto.node',
  );
  await rm(sshCryptoPath, { force: true });
  await mkdir(path.dirname(sshCryptoPath), { recursive: true });
  await copyFile(addon, sshCryptoPath).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  });
  return bundlePath;
}

/**
 * Packages the agent needs only off its hot paths — the YAML parser and the
 * zod schema for a config that is not sealed, execa to run a command,
 * commander for help and mistakes. Each is its own file beside the agent,
 * named by its content (`deploy-yaml-<sha256>.cjs`), and required only when
 * used: a watchdog tick or an agent operation neither reads nor compiles
 * them, which was a sixth of a tick's CPU (docs/benchmarks.md). Being named
 * by content, the agent file's own sha256 identifies them too.
 */
const AGENT_LIBS = ['yaml', 'zod', 'execa', 'commander'] as const;
export const AGENT_LIB_FILE = /^deploy-[a-z]+-[0-9a-f]{12}\.cjs$/;

const minified: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  legalComments: 'none',
  logLevel: 'warning',
  minifyWhitespace: true,
  minifySyntax: true,
};

async function buildAgentLib(name: string): Promise<{ file: string; contents: Uint8Array }> {
  const out = await build({
    ...minified,
    stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: root },
    write: false,
  });
  const contents = out.outputFiles[0]?.contents ?? new Uint8Array();
  return { file: contentName(name, contents), contents };
}

/**
 * proper-lockfile's helpers, lighter on hosts: graceful-fs, whose queue for
 * EMFILE a lock's few calls never need, becomes node's own fs (its patched
 * clone of fs, polyfills and legacy streams were an eighth of a tick), and
 * node:assert, which signal-exit loads for one check of its argument, one
 * function that does that check.
 */
const lockHelpers: Plugin = {
  name: 'lock-helpers',
  setup(b) {
    b.onResolve({ filter: /^graceful-fs$/ }, () => ({ path: 'fs', namespace: 'host-light' }));
    b.onResolve({ filter: /^assert$/ }, (a) =>
      a.importer.includes(`${path.sep}signal-exit${path.sep}`)
        ? { path: 'assert', namespace: 'host-light' }
        : undefined,
    );
    b.onLoad({ filter: /^fs$/, namespace: 'host-light' }, () => ({
      contents: "module.exports = require('fs');",
      loader: 'js',
    }));
    b.onLoad({ filter: /^assert$/, namespace: 'host-light' }, () => ({
      contents:
        'module.exports = { equal(actual, expected, message) { if (actual != expected) throw new Error(message); } };',
      loader: 'js',
    }));
  },
};

/** what the agent's entry names: `./deploy-<chunk>-<sha256 prefix>.cjs` (agent-main.ts) */
function contentName(name: string, contents: Uint8Array): string {
  return `deploy-${name}-${createHash('sha256').update(contents).digest('hex').slice(0, 12)}.cjs`;
}

/**
 * The host agent: the same program without the orchestrator-only packages,
 * as CommonJS, and its libraries beside it (AGENT_LIBS). Installed without
 * an extension, an ES module file is first compiled as CommonJS, fails, and
 * is detected and compiled again: with the shebang line that cost more CPU
 * than the whole tick otherwise does. Whitespace and syntax are minified
 * (less to parse); names are kept so an internal error's stack still reads.
 *
 * `agent/deploy.cjs` itself is only the entry (src/cli/agent-main.ts): a cron
 * tick requires the tick's chunk (src/cli/tick-main.ts, a fifth of the
 * agent), anything else the whole agent's (src/cli/main.ts), each a file
 * beside it named by its content. A tick parsed and compiled the whole agent
 * once a minute on every host: two thirds of what it cost beyond a bare node
 * (docs/benchmarks.md). The two chunks share no module at run time: a
 * process loads one of them. `outfile` elsewhere: a test's own agent.
 */
export async function buildAgentBundle(outfile = agentBundlePath): Promise<string> {
  const dir = path.dirname(outfile);
  const libs = await Promise.all(AGENT_LIBS.map(buildAgentLib));
  const fileOf = new Map(AGENT_LIBS.map((name, i) => [name, libs[i]?.file ?? '']));
  const besideTheAgent: Plugin = {
    name: 'agent-libs',
    setup(b) {
      b.onResolve({ filter: /^(?:yaml|zod|execa|commander)$/ }, (a) => ({
        path: `./${fileOf.get(a.path as (typeof AGENT_LIBS)[number]) ?? a.path}`,
        external: true,
      }));
    },
  };
  const chunk = async (name: string, entry: string) => {
    const out = await build({
      ...common,
      entryPoints: [path.join(root, 'src', 'cli', entry)],
      outfile: path.join(dir, `${name}.cjs`),
      write: false,
      format: 'cjs',
      minifyWhitespace: true,
      minifySyntax: true,
      plugins: [orchestratorOnly, lockHelpers, besideTheAgent],
      // import() of a library file becomes require(): an ES import of a CommonJS bundle
      // would see only its default export
      supported: { 'dynamic-import': false },
      banner: {},
      // agent-bundle.ts reads import.meta.url only where it exists: in the CLI, or run from source
      logOverride: { 'empty-import-meta': 'silent' },
    });
    const contents = out.outputFiles[0]?.contents ?? new Uint8Array();
    return { file: contentName(name, contents), contents };
  };
  const [tick, agent] = await Promise.all([
    chunk('tick', 'tick-main.ts'),
    chunk('agent', 'main.ts'),
  ]);
  const chunkOf: Record<string, string> = { './tick-main.js': tick.file, './main.js': agent.file };
  await build({
    ...common,
    entryPoints: [path.join(root, 'src', 'cli', 'agent-main.ts')],
    outfile,
    format: 'cjs',
    minifyWhitespace: true,
    minifySyntax: true,
    plugins: [
      {
        name: 'agent-chunks',
        setup(b) {
          b.onResolve({ filter: /^\.\/(?:tick-)?main\.js$/ }, (a) => ({
            path: `./${chunkOf[a.path] ?? a.path}`,
            external: true,
          }));
        },
      },
    ],
    supported: { 'dynamic-import': false },
    // the built entry, and only it, keeps its compile cache beside itself (agent-main.ts)
    define: { HANDOFF_AGENT_BUNDLE: 'true' },
    // CommonJS has require and __dirname of its own
    banner: { js: '#!/usr/bin/env node' },
  });
  const files = [...libs, tick, agent];
  const stale = (await readdir(dir)).filter(
    (f) => AGENT_LIB_FILE.test(f) && !files.some((l) => l.file === f),
  );
  await Promise.all(stale.map((f) => rm(path.join(dir, f), { force: true })));
  await Promise.all(files.map((l) => writeFile(path.join(dir, l.file), l.contents)));
  return outfile;
}

/** The health library alone: what a service ships in its release (the lab's demo app does). */
export async function buildHealthBundle(): Promise<string> {
  await build({
    entryPoints: [path.join(root, 'src', 'health', 'index.ts')],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    legalComments: 'none',
    logLevel: 'warning',
    outfile: healthBundlePath,
  });
  return healthBundlePath;
}

/**
 * The probe an exec health check runs every few seconds: CommonJS and minified,
 * importing only node built-ins, so it costs about what `node -e ''` costs.
 */
export async function buildProbeBundle(): Promise<string> {
  await build({
    ...minified,
    entryPoints: [path.join(root, 'src', 'health', 'probe-main.ts')],
    outfile: probeBundlePath,
    banner: { js: '#!/usr/bin/env node' },
  });
  return probeBundlePath;
}

/**
 * Type declarations of the health library for `import … from 'handoff-deploy/health'`:
 * tsc emits them for src/health and what it imports (clock, hysteresis).
 */
export async function buildHealthTypes(): Promise<void> {
  await execFileAsync(process.execPath, [
    path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    path.join(root, 'tsconfig.health.json'),
  ]);
}

/** Every bundle; resolves with the CLI's path. */
export async function buildBundle(): Promise<string> {
  await Promise.all([
    buildCliBundle(),
    buildAgentBundle(),
    buildHealthBundle(),
    buildProbeBundle(),
    buildHealthTypes(),
  ]);
  return bundlePath;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildBundle();
  console.log(bundlePath);
  console.log(agentBundlePath);
  console.log(healthBundlePath);
  console.log(probeBundlePath);
}
