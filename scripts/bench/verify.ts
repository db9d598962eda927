import os from 'node:os';
import { mb, median, ms, type Row } from './table.js';
import { startBenchFleet, type BenchFleet, type DeployRun } from './fleet.js';

const RUNS = 3;
/** a 30-host lab shares this machine's cores: its wall is judged against what their CPU allows */
const CPU_BOUND_GOAL = 1.3;
const RSS_GOAL_MB = 200;

interface Measured {
  readonly wallMs: number;
  readonly maxRssKib: number;
  /** medians of one run: the orchestrator's CPU, and the hosts' (sshd + agents) */
  readonly cpuMs: number;
  readonly hostCpuMs: number;
}

async function verifyRuns(
  fleet: BenchFleet,
  args: readonly string[],
  what: string,
  report: (line: string) => void,
): Promise<Measured> {
  const runs: DeployRun[] = [];
  const hostCpu: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const before = await fleet.hostCpuMs();
    const r = await fleet.deploy(['verify', ...args], { rss: true });
    hostCpu.push((await fleet.hostCpuMs()) - before);
    if (r.code !== 0)
      throw new Error(`deploy verify (${what}) exited ${r.code}: ${r.stderr}${r.stdout}`);
    runs.push(r);
  }
  report(
    `verify ${what}: wall ${runs.map((r) => Math.round(r.wallMs)).join(' ')} ms, orchestrator CPU ${runs.map((r) => Math.round(r.cpuMs ?? 0)).join(' ')} ms, hosts' CPU ${hostCpu.map(Math.round).join(' ')} ms, RSS ${runs.map((r) => mb(r.maxRssKib ?? 0)).join(' ')}`,
  );
  return {
    wallMs: median(runs.map((r) => r.wallMs)),
    maxRssKib: Math.max(...runs.map((r) => r.maxRssKib ?? 0)),
    cpuMs: median(runs.map((r) => r.cpuMs ?? 0)),
    hostCpuMs: median(hostCpu),
  };
}

/**
 * A lab of `hosts`, set up and rolled out, for the time it takes to measure.
 * A fleet of one cannot be rolled out (the capacity guard keeps min_healthy
 * serving), so the one-host baseline is a verify of `--hosts web-1` in the
 * smallest fleet that can: two hosts.
 */
async function withFleet<T>(
  hosts: number,
  subnet: string,
  report: (line: string) => void,
  measure: (fleet: BenchFleet) => Promise<T>,
): Promise<T> {
  report(`verify: starting a ${hosts}-host lab`);
  const fleet = await startBenchFleet({
    hosts,
    subnet,
    workDir: `/tmp/handoff-bench-verify-${hosts}`,
    firstBatch: hosts > 3 ? '34%' : undefined,
    report: (line) => report(`  ${line}`),
  });
  try {
    return await measure(fleet);
  } finally {
    await fleet.stop();
  }
}

/**
 * `deploy verify` on a 30-host lab against a 1-host lab in the same run
 * (one lab at a time), and the orchestrator's peak RSS on the large one.
 */
export async function benchVerify(
  report: (line: string) => void,
  hosts = Number(process.env.BENCH_VERIFY_HOSTS ?? 30),
): Promise<Row[]> {
  const one = await withFleet(2, '127.0.21', report, (f) =>
    verifyRuns(f, ['--hosts', 'web-1'], '1 host (of a 2-host lab)', report),
  );
  const many = await withFleet(hosts, '127.0.23', report, (f) =>
    verifyRuns(f, [], `${hosts} hosts`, report),
  );
  const cores = os.availableParallelism();
  // the shortest wall the lab's CPUs allow: every host's and the orchestrator's CPU spread over the cores
  const boundMs = (many.cpuMs + many.hostCpuMs) / cores;
  const bound = many.wallMs / boundMs;
  return [
    {
      figure: `deploy verify wall time, ${hosts} hosts, against its CPU bound (median of ${RUNS})`,
      value: ms(many.wallMs),
      baseline: `${ms(boundMs)} = CPU ÷ ${cores} cores`,
      ratio: bound,
      goal: `≤ ${CPU_BOUND_GOAL}×`,
      pass: bound <= CPU_BOUND_GOAL,
    },
    {
      figure: `deploy verify wall time, ${hosts} hosts against 1 host`,
      value: ms(many.wallMs),
      baseline: `${ms(one.wallMs)} on 1 host`,
      ratio: many.wallMs / one.wallMs,
      goal: 'recorded',
    },
    {
      figure: `CPU of one verify, ${hosts} hosts: orchestrator + hosts`,
      value: `${ms(many.cpuMs)} + ${ms(many.hostCpuMs)}`,
      baseline: `${ms(one.cpuMs)} + ${ms(one.hostCpuMs)} on 1 host`,
      ratio: (many.cpuMs + many.hostCpuMs) / (one.cpuMs + one.hostCpuMs),
      goal: 'recorded',
    },
    {
      figure: `orchestrator peak RSS, verify of ${hosts} hosts`,
      value: mb(many.maxRssKib),
      baseline: `${mb(one.maxRssKib)} on 1 host`,
      ratio: many.maxRssKib / one.maxRssKib,
      goal: `≤ ${RSS_GOAL_MB} MB`,
      pass: many.maxRssKib / 1024 <= RSS_GOAL_MB,
    },
  ];
}
