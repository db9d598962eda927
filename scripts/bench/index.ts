import { cpus, loadavg } from 'node:os';
import { benchArtifact } from './artifact.js';
import { BENCH_DIST_DIR, buildBenchBundles } from './bundles.js';
import { benchHealth } from './health.js';
import { benchRollout } from './rollout.js';
import { benchScale } from './scale.js';
import { benchSoak } from './soak.js';
import { allPass, formatTable, type Row } from './table.js';
import { benchVerify } from './verify.js';
import { benchWatchdog } from './watchdog.js';

/**
 * `npm run bench [-- watchdog|verify|rollout|artifact|health|soak …]`: each benchmark measures its
 * baseline in the same run, prints a table, and the exit code says whether
 * every goal was met.
 */
const benches: Record<
  string,
  {
    title: string;
    run: (r: (l: string) => void) => Promise<Row[]>;
    /** run only when named: it takes most of an hour */
    named?: true;
  }
> = {
  watchdog: { title: 'watchdog: CPU of one tick vs a bare node', run: benchWatchdog },
  verify: {
    title: 'verify: 30 hosts against their CPU bound and 1 host, and orchestrator RSS',
    run: benchVerify,
  },
  rollout: { title: 'rollout: requests lost, and overhead per host', run: benchRollout },
  scale: {
    title:
      'scale: verify and a 10% rollout over 1, 100 and 500 simulated hosts, then a rollout with 1% of them dead (unreachable: skip); the rollouts again with the fleet lease in etcd',
    run: benchScale,
  },
  artifact: {
    title: 'artifact: shipping 50 MB to 3 hosts vs scp, and the drain window',
    run: benchArtifact,
  },
  health: {
    title: 'health: /ready throughput vs bare node:http, and the probe vs a bare node',
    run: benchHealth,
  },
  soak: {
    title: 'soak: rollouts back to back under load, every balancer, races, SIGKILLs, watchdogs',
    run: benchSoak,
    named: true,
  },
};

const wanted = process.argv.slice(2).filter((a) => a !== '--');
const unknown = wanted.filter((w) => !(w in benches));
if (unknown.length > 0) {
  process.stderr.write(
    `bench: unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(benches).join(', ')}\n`,
  );
  process.exit(2);
}
const names = wanted.length > 0 ? wanted : Object.keys(benches).filter((n) => !benches[n]?.named);
const note = (line: string): void => void process.stderr.write(`${line}\n`);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

note(`bench: ${new Date().toISOString()}, ${cpus().length} cores, node ${process.version}`);
note(`bench: building dist/deploy.mjs and dist/agent/deploy.cjs, copied to ${BENCH_DIST_DIR}`);
await buildBenchBundles();
let ok = true;
for (const name of names) {
  const bench = benches[name];
  if (!bench) continue;
  note(`bench: ${name} (load average ${load()})`);
  const started = Date.now();
  const rows = await bench.run(note);
  ok &&= allPass(rows);
  process.stdout.write(
    `${formatTable(bench.title, rows)}\n(${((Date.now() - started) / 1000).toFixed(0)} s, load average after: ${load()})\n\n`,
  );
}
process.exitCode = ok ? 0 : 1;
