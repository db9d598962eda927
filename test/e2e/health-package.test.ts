import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../../scripts/build.js';

/**
 * The package as a user gets it: `npm pack`, installed into a throwaway
 * project (offline: it must need no dependency at all), imported as
 * `handoff-deploy/health` from JavaScript and TypeScript, its probe run as a file.
 */
let project: string;
const inProject = (...p: string[]) => path.join(project, ...p);
const npm = (args: string[], cwd: string) =>
  execa('npm', [...args, '--no-audit', '--no-fund', '--ignore-scripts'], { cwd });

beforeAll(async () => {
  project = await mkdtemp(path.join(tmpdir(), 'handoff-package-'));
  const packed = await npm(['pack', '--pack-destination', project, '--json'], root);
  const [{ filename }] = JSON.parse(String(packed.stdout)) as [{ filename: string }];
  await writeFile(inProject('package.json'), '{"name":"user","private":true,"type":"module"}\n');
  await npm(['install', '--offline', `./${filename}`], project);
}, 120_000);
afterAll(() => rm(project, { recursive: true, force: true }));

describe('handoff-deploy/health from a project that installs the packed tarball', () => {
  it('installs with no dependency beside it, and its entry imports only node built-ins', async () => {
    const installed = (await readdir(inProject('node_modules'))).filter((n) => !n.startsWith('.'));
    expect(installed).toEqual(['handoff-deploy']);
    const entry = await readFile(
      inProject('node_modules', 'handoff-deploy', 'dist', 'health.mjs'),
      'utf8',
    );
    const imports = [
      ...entry.matchAll(/\bfrom\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']/g),
    ].map((m) => m[1] ?? m[2]);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((i) => !i?.startsWith('node:'))).toEqual([]);
  });

  it('serves the handshake from `import { createHealth } from "handoff-deploy/health"`', async () => {
    await writeFile(
      inProject('service.mjs'),
      `import http from 'node:http';
import { createHealth } from 'handoff-deploy/health';
const health = createHealth({ release: 'r9', checks: [{ name: 'db', run: () => true }] });
await health.round();
health.markStarted();
const server = http.createServer((req, res) => health.handles(req) ? health.handler(req, res) : res.end('app'));
server.listen(0, '127.0.0.1', async () => {
  const res = await fetch('http://127.0.0.1:' + server.address().port + '/ready');
  console.log(res.status, res.headers.get('x-release'), await res.text());
  server.close();
});
`,
    );
    const r = await execa(process.execPath, ['service.mjs'], { cwd: project });
    expect(String(r.stdout)).toMatch(
      /^200 r9 \{"status":"ok","checks":\[\{"name":"db","healthy":true/,
    );
  });

  it('type-checks a TypeScript service against the shipped declarations', async () => {
    await writeFile(
      inProject('service.ts'),
      `import { createHealth, gracefulShutdown, startWorkerMarks, type Health } from 'handoff-deploy/health';
const health: Health = createHealth({ checks: [{ name: 'db', critical: true, timeoutMs: 500, run: (signal: AbortSignal) => !signal.aborted }], watchdogs: { jobs: 30_000 } });
createHealth({ autoStart: true, statusOnly: true });
health.start({ intervalMs: 1000 });
health.heartbeat('jobs');
void gracefulShutdown;
void startWorkerMarks;
// @ts-expect-error: a check needs a run function
createHealth({ checks: [{ name: 'db' }] });
`,
    );
    await writeFile(
      inProject('tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [path.join(root, 'node_modules', '@types')],
        },
        files: ['service.ts'],
      }),
    );
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = await execa(process.execPath, [tsc, '-p', project], { reject: false });
    expect(r.exitCode, String(r.stdout)).toBe(0);
  });

  it('runs the standalone probe, which fails naming the missing slot', async () => {
    const marks = inProject('marks');
    await mkdir(marks);
    await writeFile(path.join(marks, 'expected'), '2\n');
    await writeFile(path.join(marks, 'worker-1'), '');
    const probe = inProject('node_modules', 'handoff-deploy', 'dist', 'probe.cjs');
    const failing = await execa(process.execPath, [probe, '--dir', marks, '--max-age', '30s'], {
      reject: false,
    });
    expect([failing.exitCode, String(failing.stderr)]).toEqual([
      1,
      'FAIL: 1 of 2 slots fresh; missing worker-2',
    ]);
    await writeFile(path.join(marks, 'worker-2'), '');
    const old = new Date(Date.now() - 60_000);
    await utimes(path.join(marks, 'worker-1'), old, old);
    const stale = await execa(process.execPath, [probe, '--dir', marks, '--max-age', '30s'], {
      reject: false,
    });
    expect([stale.exitCode, String(stale.stderr)]).toEqual([
      1,
      'FAIL: 1 of 2 slots fresh; stale worker-1 (60s)',
    ]);
  });
});
