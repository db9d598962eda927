import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { benchHealth as healthLib, benchProbe } from './bundles.js';
import { median, ms, type Row } from './table.js';

const ROUNDS = 5;
const LOAD_MS = 3000;
const CONNECTIONS = 32;
const PROBE_RUNS = 21;
const serverScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'health-server.mjs');

async function startServer(
  mode: 'bare' | 'library' | 'untracked' | 'tracked',
  stateDir = '',
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [serverScript, mode, healthLib, stateDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [data] = (await once(child.stdout, 'data')) as [Buffer];
  return { child, port: Number(String(data).trim()) };
}

function getBody(agent: http.Agent, port: number, p: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p, agent }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += String(c)));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

/** requests per second to `route` over CONNECTIONS keep-alive connections for LOAD_MS */
async function load(port: number, route = '/ready'): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const end = Date.now() + LOAD_MS;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) {
        await getBody(agent, port, route);
        done += 1;
      }
    }),
  );
  agent.destroy();
  return (done * 1000) / LOAD_MS;
}

async function wallMs(argv: readonly string[]): Promise<number> {
  const started = performance.now();
  await execa(argv[0] ?? '', argv.slice(1), { stdin: 'ignore', reject: false });
  return performance.now() - started;
}

/**
 * `/ready` throughput of a node:http server using the library against a bare
 * node:http server answering "ok", interleaved in the same run, with the
 * library's dependency-call counter read before and after the load; and the
 * standalone probe's whole-process wall time against `node -e ''`.
 */
export async function benchHealth(report: (line: string) => void): Promise<Row[]> {
  const bare = await startServer('bare');
  const library = await startServer('library');
  const agent = new http.Agent({ keepAlive: true });
  const samples = { bare: [] as number[], library: [] as number[] };
  let callsDuringLoad = 0;
  try {
    for (let i = 0; i < ROUNDS; i += 1) {
      const order = i % 2 ? (['library', 'bare'] as const) : (['bare', 'library'] as const);
      for (const side of order) {
        if (side === 'bare') samples.bare.push(await load(bare.port));
        else {
          const before = Number(await getBody(agent, library.port, '/calls'));
          samples.library.push(await load(library.port));
          callsDuringLoad += Number(await getBody(agent, library.port, '/calls')) - before;
        }
      }
    }
  } finally {
    agent.destroy();
    bare.child.kill();
    library.child.kill();
  }
  report(
    `health /ready req/s: bare ${samples.bare.map(Math.round).join(' ')} | library ${samples.library.map(Math.round).join(' ')}`,
  );

  const dir = await mkdtemp(path.join(tmpdir(), 'handoff-bench-probe-'));
  const probeSamples = { node: [] as number[], probe: [] as number[] };
  try {
    const marks = path.join(dir, 'marks');
    await mkdir(marks);
    await writeFile(path.join(marks, 'expected'), '4\n');
    for (let n = 1; n <= 4; n += 1) await writeFile(path.join(marks, `worker-${n}`), '');
    const probeArgv = [process.execPath, benchProbe, '--dir', marks, '--max-age', '30s'];
    const check = await execa(probeArgv[0] ?? '', probeArgv.slice(1), { reject: false });
    if (check.exitCode !== 0) throw new Error(`the probe failed on fresh marks: ${check.stderr}`);
    for (let i = 0; i < PROBE_RUNS; i += 1) {
      const pair = i % 2 ? (['probe', 'node'] as const) : (['node', 'probe'] as const);
      for (const which of pair)
        probeSamples[which].push(
          await wallMs(which === 'node' ? [process.execPath, '-e', ''] : probeArgv),
        );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  report(
    `probe wall (ms): node ${probeSamples.node.map(Math.round).join(' ')} | probe ${probeSamples.probe.map(Math.round).join(' ')}`,
  );

  const counting = await benchCounting(report);
  const bareRps = median(samples.bare);
  const libRps = median(samples.library);
  const node = median(probeSamples.node);
  const probe = median(probeSamples.probe);
  return [
    {
      figure: `/ready throughput, library (median of ${ROUNDS} × ${LOAD_MS / 1000} s, ${CONNECTIONS} connections)`,
      value: `${Math.round(libRps)} req/s`,
      baseline: `${Math.round(bareRps)} req/s bare "ok"`,
      ratio: libRps / bareRps,
      goal: '≥ 0.8×',
      pass: libRps / bareRps >= 0.8,
    },
    {
      figure: 'dependency calls during the load',
      value: String(callsDuringLoad),
      baseline: '-',
      goal: '0',
      pass: callsDuringLoad === 0,
    },
    counting,
    {
      figure: `probe process wall time (median of ${PROBE_RUNS})`,
      value: ms(probe),
      baseline: `${ms(node)} node -e ''`,
      ratio: probe / node,
      goal: '≤ 1.3×',
      pass: probe / node <= 1.3,
    },
  ];
}

/**
 * The same app route with and without countResponses (the canary's
 * `service` source), interleaved; the tracked side writes its counts to a
 * temp state dir once a second, as it would on a host.
 */
async function benchCounting(report: (line: string) => void): Promise<Row> {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'handoff-bench-counts-'));
  const untracked = await startServer('untracked');
  const tracked = await startServer('tracked', stateDir);
  const samples = { untracked: [] as number[], tracked: [] as number[] };
  try {
    for (let i = 0; i < ROUNDS; i += 1) {
      const order =
        i % 2 ? (['tracked', 'untracked'] as const) : (['untracked', 'tracked'] as const);
      for (const side of order)
        samples[side].push(await load(side === 'tracked' ? tracked.port : untracked.port, '/app'));
    }
  } finally {
    untracked.child.kill();
    tracked.child.kill();
    await rm(stateDir, { recursive: true, force: true });
  }
  report(
    `app route req/s: untracked ${samples.untracked.map(Math.round).join(' ')} | tracked ${samples.tracked.map(Math.round).join(' ')}`,
  );
  const plain = median(samples.untracked);
  const counted = median(samples.tracked);
  return {
    figure: `app route throughput, counted by countResponses (median of ${ROUNDS} × ${LOAD_MS / 1000} s)`,
    value: `${Math.round(counted)} req/s`,
    baseline: `${Math.round(plain)} req/s untracked`,
    ratio: counted / plain,
    goal: '≥ 0.95×',
    pass: counted / plain >= 0.95,
  };
}
