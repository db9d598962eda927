import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { benchCli } from './bundles.js';
import { criticalPath, type HostSteps } from './critical-path.js';
import { formatLeaseCost, leaseCost } from './lease-cost.js';
import { benchScaleEtcd } from './scale-etcd.js';
import { CPU_GOAL_MS, rssGoalMb } from './scale-goals.js';
import { startSimFleet, type SimFleet } from './sim/fleet.js';
import { mb, ms, type Row } from './table.js';

// BENCH_SCALE_SIZES=1,500: a shorter run (the ratios need 1 first)
const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1,100,500,2000').split(',').map(Number);
// BENCH_SCALE_NODE_ARGS: node flags for each CLI run, e.g. --cpu-prof --cpu-prof-dir=DIR
const NODE_ARGS = (process.env.BENCH_SCALE_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
// BENCH_SCALE_VERIFY=0: the rollouts alone (a memory or CPU profile of the rollout; no verify rows)
const WITH_VERIFY = process.env.BENCH_SCALE_VERIFY !== '0';
const RTT_MS = 20;
const CHECK_MS = 200;
const WALL_GOAL = 3;
/** the verify goal was set for 500 hosts; beyond, the ratio is recorded */
const WALL_GOAL_HOSTS = 500;
const PATH_GOAL = 1.05;

interface Run {
  readonly wallMs: number;
  readonly rssKib: number;
  readonly cpuMs: number;
  readonly stdout: string;
}

/** the real CLI as a process under /usr/bin/time: wall, peak RSS, user + sys CPU */
async function timed(
  args: readonly string[],
  workDir: string,
  exitCodes: readonly number[] = [0],
): Promise<Run> {
  const out = path.join(workDir, 'time.txt');
  const started = performance.now();
  const r = await execa(
    '/usr/bin/time',
    ['-f', '%M %U %S', '-o', out, process.execPath, ...NODE_ARGS, benchCli, ...args],
    { reject: false, timeout: 600_000, env: { HANDOFF_WHO: 'bench' } },
  );
  const wallMs = performance.now() - started;
  if (!exitCodes.includes(r.exitCode ?? -1)) {
    // the cause is usually far above the last lines (2 000 hosts' names): all of it kept
    const kept = `${workDir}-failed.log`;
    await writeFile(kept, `${String(r.stderr)}\n--- stdout ---\n${String(r.stdout)}`);
    throw new Error(
      `deploy ${args.join(' ')} exited ${r.exitCode} (its output in ${kept}): ${String(r.stderr).slice(-1500)}`,
    );
  }
  const [rss = NaN, user = 0, sys = 0] = (
    (await readFile(out, 'utf8')).trim().split('\n').at(-1) ?? ''
  )
    .split(' ')
    .map(Number);
  await rm(out, { force: true });
  return { wallMs, rssKib: rss, cpuMs: (user + sys) * 1000, stdout: String(r.stdout) };
}

interface Measured {
  readonly hosts: number;
  readonly verify?: Run;
  readonly rollout: Run;
  /** the waves' span from the first lock to the last unlock, and the sum of each wave's slowest host */
  readonly spanMs: number;
  readonly pathMs: number;
}

async function measure(hosts: number, report: (line: string) => void): Promise<Measured> {
  // a directory of its own: another checkout's bench may run beside this one
  const workDir = await mkdtemp(path.join(tmpdir(), `handoff-bench-scale-${hosts}-`));
  const fleet = await startSimFleet({
    hosts,
    workDir,
    rttMs: RTT_MS,
    checkMs: CHECK_MS,
    // every host in flight at once: the figure is the orchestrator's cost, not the limit's
    maxConnections: Math.max(hosts, 1),
    minHealthy: hosts === 1 ? 0 : 1,
    allowDowntime: hosts === 1,
  });
  try {
    const c = ['-c', fleet.configPath];
    const verify = WITH_VERIFY ? await timed(['verify', ...c], workDir) : undefined;
    const before = callCounts(fleet);
    const rollout = await timed(
      ['rollout', '--release', 'r2', '--batch', '10%', '--json', ...c],
      workDir,
    ).finally(() =>
      // said whether the rollout passed or not: what it asked is the first thing to look at
      report(
        `scale ${hosts}: the rollout's calls per host: ${callsPerHost(callCounts(fleet), before, hosts)}`,
      ),
    );
    const result = JSON.parse(rollout.stdout.trim().split('\n').at(-1) ?? '{}') as {
      hosts?: HostSteps[];
    };
    const { spanMs, pathMs, waves } = criticalPath(result.hosts ?? []);
    report(
      `scale ${hosts}: ${verify ? `verify ${ms(verify.wallMs)} (CPU ${ms(verify.cpuMs)}, ${mb(verify.rssKib)}), ` : ''}rollout ${ms(rollout.wallMs)} (CPU ${ms(rollout.cpuMs)}, ${mb(rollout.rssKib)}), ${waves} waves: span ${ms(spanMs)}, critical path ${ms(pathMs)}`,
    );
    return { hosts, ...(verify && { verify }), rollout, spanMs, pathMs };
  } finally {
    await fleet.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** every agent operation and balancer command the simulation answered so far, by name */
function callCounts(fleet: SimFleet): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (name: string, n: number) => counts.set(name, (counts.get(name) ?? 0) + n);
  for (const state of fleet.states) for (const [op, n] of state.calls) add(op, n);
  for (const [command, n] of fleet.balancerCommands) add(`balancer ${command}`, n);
  return counts;
}

/** `status 45.2, lock 1, …`: what was asked since `before`, per host, most first */
function callsPerHost(
  now: ReadonlyMap<string, number>,
  before: ReadonlyMap<string, number>,
  hosts: number,
): string {
  return [...now]
    .map(([name, n]) => [name, (n - (before.get(name) ?? 0)) / hosts] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n.toFixed(1)}`)
    .join(', ');
}

// BENCH_SCALE_DEAD_HOSTS=2000: the dead-hosts run's fleet (0: none); 1 % of it refuses SSH
const DEAD_FLEET = Number(process.env.BENCH_SCALE_DEAD_HOSTS ?? SIZES.at(-1) ?? 500);
const DEAD_SHARE = 0.01;

interface DeadRun {
  readonly hosts: number;
  readonly dead: number;
  readonly rollout: Run;
  readonly deployed: number;
  readonly skipped: readonly string[];
  readonly exitCode: number;
}

/**
 * rollout.unreachable: skip, max_unreachable 1%, over a fleet whose last 1 %
 * refuse SSH: every other host deployed, exactly the dead ones skipped (and
 * so never counted as serving), exit 4.
 */
async function measureDead(hosts: number, report: (line: string) => void): Promise<DeadRun> {
  const workDir = await mkdtemp(path.join(tmpdir(), `handoff-bench-scale-dead-${hosts}-`));
  const fleet = await startSimFleet({
    hosts,
    workDir,
    rttMs: RTT_MS,
    checkMs: CHECK_MS,
    maxConnections: hosts,
    faults: { refuse: DEAD_SHARE },
    skipUnreachable: '1%',
  });
  try {
    const rollout = await timed(
      ['rollout', '--release', 'r2', '--batch', '10%', '--json', '-c', fleet.configPath],
      workDir,
      [4],
    );
    const result = JSON.parse(rollout.stdout.trim().split('\n').at(-1) ?? '{}') as {
      hosts?: { host: string; result: string }[];
      skipped?: { host: string }[];
      exit_code?: number;
    };
    const deployed = (result.hosts ?? []).filter((h) => h.result === 'deployed').length;
    const skipped = (result.skipped ?? []).map((s) => s.host).sort();
    report(
      `scale ${hosts} with ${fleet.faults.size} dead: rollout ${ms(rollout.wallMs)} (CPU ${ms(rollout.cpuMs)}, ${mb(rollout.rssKib)}), ${deployed} deployed, ${skipped.length} skipped, exit ${result.exit_code ?? '?'}`,
    );
    return {
      hosts,
      dead: fleet.faults.size,
      rollout,
      deployed,
      skipped,
      exitCode: result.exit_code ?? -1,
    };
  } finally {
    await fleet.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

function deadRows(d: DeadRun): Row[] {
  const cpu = d.rollout.cpuMs / d.hosts;
  return [
    {
      figure: `rollout of ${d.hosts} with ${d.dead} dead (unreachable: skip): deployed, skipped, exit`,
      value: `${d.deployed}, ${d.skipped.length}, ${d.exitCode}`,
      baseline: '–',
      goal: `${d.hosts - d.dead}, ${d.dead}, 4`,
      pass: d.deployed === d.hosts - d.dead && d.skipped.length === d.dead && d.exitCode === 4,
    },
    {
      figure: `orchestrator CPU per host, rollout of ${d.hosts} with ${d.dead} dead`,
      value: `${cpu.toFixed(1)} ms`,
      baseline: '–',
      goal: `≤ ${CPU_GOAL_MS} ms`,
      pass: cpu <= CPU_GOAL_MS,
    },
    {
      figure: `orchestrator peak RSS, rollout of ${d.hosts} with ${d.dead} dead`,
      value: mb(d.rollout.rssKib),
      baseline: '–',
      goal: `≤ ${rssGoalMb(d.hosts)} MB`,
      pass: d.rollout.rssKib / 1024 <= rssGoalMb(d.hosts),
    },
  ];
}

/**
 * verify's wall time at each size against one host's (none with
 * BENCH_SCALE_VERIFY=0), judged at the largest size the goal was set for
 */
function verifyRows(runs: readonly Measured[], one: Measured): Row[] {
  const oneVerify = one.verify;
  if (!oneVerify) return [];
  const judged = runs.filter((r) => r.hosts <= WALL_GOAL_HOSTS).at(-1);
  return runs.slice(1).flatMap((r) => {
    if (!r.verify) return [];
    const ratio = r.verify.wallMs / oneVerify.wallMs;
    return [
      {
        figure: `deploy verify wall time, ${r.hosts} hosts`,
        value: ms(r.verify.wallMs),
        baseline: `${ms(oneVerify.wallMs)} on 1 host`,
        ratio,
        goal: r.hosts <= WALL_GOAL_HOSTS ? `≤ ${WALL_GOAL}×` : 'recorded',
        ...(r === judged ? { pass: ratio <= WALL_GOAL } : {}),
      },
    ];
  });
}

/**
 * `deploy verify` and a `--batch 10%` rollout over 1, 100, 500 and 2 000 simulated
 * hosts (scripts/bench/sim: in-process SSH servers answering the agent
 * protocol after 20 ms round trips, 200 ms per check), the real CLI as the
 * orchestrator: what the orchestrator itself costs as the fleet grows.
 */
export async function benchScale(report: (line: string) => void): Promise<Row[]> {
  const runs: Measured[] = [];
  for (const hosts of SIZES) runs.push(await measure(hosts, report));
  const dead = DEAD_FLEET > 0 ? await measureDead(DEAD_FLEET, report) : undefined;
  const one = runs[0];
  const big = runs.at(-1);
  if (!one || !big) return [];
  const rows: Row[] = [...verifyRows(runs, one)];
  const peak = Math.max(big.verify?.rssKib ?? 0, big.rollout.rssKib);
  rows.push({
    figure: `orchestrator peak RSS, ${big.hosts} hosts (${big.verify ? 'verify, ' : ''}rollout)`,
    value: [big.verify, big.rollout].flatMap((r) => (r ? [mb(r.rssKib)] : [])).join(', '),
    baseline: `${[one.verify, one.rollout].flatMap((r) => (r ? [mb(r.rssKib)] : [])).join(', ')} on ${one.hosts} host${one.hosts === 1 ? '' : 's'}`,
    ratio: peak / Math.max(one.verify?.rssKib ?? 0, one.rollout.rssKib),
    goal: `≤ ${rssGoalMb(big.hosts)} MB`,
    pass: peak / 1024 <= rssGoalMb(big.hosts),
  });
  for (const [what, pick] of [
    ['verify', (m: Measured) => m.verify],
    ['rollout', (m: Measured) => m.rollout],
  ] as const) {
    const [bigRun, oneRun] = [pick(big), pick(one)];
    if (!bigRun || !oneRun) continue;
    const cpu = bigRun.cpuMs / big.hosts;
    rows.push({
      figure: `orchestrator CPU per host, ${what} of ${big.hosts}`,
      value: `${cpu.toFixed(1)} ms`,
      baseline: `${ms(oneRun.cpuMs)} for ${one.hosts} host${one.hosts === 1 ? '' : 's'}`,
      goal: `≤ ${CPU_GOAL_MS} ms`,
      pass: cpu <= CPU_GOAL_MS,
    });
  }
  for (const r of runs.slice(1)) {
    const ratio = r.spanMs / r.pathMs;
    rows.push({
      figure: `--batch 10% rollout of ${r.hosts}: waves' span ÷ critical path`,
      value: ms(r.spanMs),
      baseline: `${ms(r.pathMs)} (wall ${ms(r.rollout.wallMs)})`,
      ratio,
      goal: `≤ ${PATH_GOAL}×`,
      pass: ratio <= PATH_GOAL,
    });
  }
  if (dead) rows.push(...deadRows(dead));
  // the hosts store's lease, beside etcd's (BENCH_SCALE_ETCD=0: no etcd runs)
  for (const r of runs) {
    const lease = leaseCost(r.rollout.stdout);
    rows.push({
      figure: `hosts-store lease: take + release, ${r.hosts} hosts`,
      value: ms(lease.takeMs + lease.releaseMs),
      baseline: formatLeaseCost(lease),
      goal: 'recorded',
    });
  }
  if (process.env.BENCH_SCALE_ETCD !== '0')
    rows.push(...(await benchScaleEtcd(SIZES, DEAD_FLEET, timed, report)));
  return rows;
}
