import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  addReports,
  formatReport,
  startLoad,
  type Lab,
  type LabBalancer,
  type LoadReport,
} from '../lab/index.js';
import type { RolloutResult, StepName } from '../../src/rollout/types.js';
import { startBenchFleet } from './fleet.js';
import { bakeCost, receiptMsPerHost } from './evidence-cost.js';
import { formatLeaseCost, leaseCost } from './lease-cost.js';
import { formatGaps, formatPhases, gapsByPair, p2Phases, stepsByHost } from './p2-phases.js';
import { onlyNamed } from './only.js';
import { cpuShares, cpuTimes, formatShares } from './proc-stat.js';
import { median, ms, type Row } from './table.js';

// issue 24's goal on Node 24 (it was 300 ms)
const OVERHEAD_GOAL_MS = 100;
/** the fleet lease's take and release, on the rollout's path (issue 21) */
const LEASE_GOAL_MS = 100;
/** the steps that wait on the balancer, the overlap or the services, not on handoff */
const WAITS: readonly StepName[] = ['await-out', 'overlap', 'stop', 'start', 'await-in'];
const LOAD = { concurrency: 8, maxDurationMs: 300_000 } as const;

/** The result line of `deploy rollout --json`. */
export function resultOf(stdout: string): RolloutResult {
  const line = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event?: string })
    .find((l) => l.event === 'result');
  if (!line) throw new Error(`deploy rollout --json printed no result line:\n${stdout}`);
  return line as unknown as RolloutResult;
}

/** One load per frontend (an HAProxy pair has two), counted together. */
function loadAll(lab: Lab): { stop(): Promise<LoadReport> } {
  const urls = lab.layout.pair ? lab.haproxies.map((h) => h.url) : [lab.url];
  const loads = urls.map((url) => startLoad({ url, ...LOAD }));
  return {
    stop: async () => {
      const reports = await Promise.all(loads.map((l) => l.stop()));
      return reports.reduce(addReports);
    },
  };
}

/** The lab's own stop/start of the app on every host in turn, with nothing told to the balancer. */
const CANARY_BAKE_MS = 10_000;

/** `deploy rollout r3 --canary 1 --canary-bake 10s` under load: the bake's cost from its events */
async function canaryRun(fleet: Awaited<ReturnType<typeof startBenchFleet>>) {
  const { lab } = fleet;
  await Promise.all(lab.hosts.map((h) => lab.stageRelease(h, 'r3')));
  const load = loadAll(lab);
  const run = await fleet.deploy([
    'rollout',
    '--release',
    'r3',
    '--json',
    '--canary',
    '1',
    '--canary-bake',
    `${CANARY_BAKE_MS / 1000}s`,
  ]);
  const report = await load.stop();
  if (run.code !== 0)
    throw new Error(`deploy rollout r3 --canary exited ${run.code}: ${run.stderr}`);
  const judged = (resultOf(run.stdout) as { judgements?: { elapsed_ms?: number }[] }).judgements;
  return {
    ...bakeCost(run.stdout),
    elapsedMs: judged?.[0]?.elapsed_ms ?? Number.NaN,
    failed: report.failed,
    total: report.total,
  };
}

async function naiveRollout(lab: Lab, release: string): Promise<LoadReport> {
  const load = loadAll(lab);
  const { paths, selfName, appPort } = lab.layout;
  const env = `export RELEASE=${release} STATE_DIR=${paths.state} BIND=${selfName} PORT=${appPort}`;
  for (const h of lab.hosts) {
    await lab.inHost(h, [
      'sh',
      '-c',
      `cd ${paths.root}/current && ${env} && node ctl.mjs stop app && node ctl.mjs start app`,
    ]);
  }
  const report = await load.stop();
  for (const h of lab.hosts) await lab.waitForStatus(h.name, (s) => s === 'UP', 30_000);
  return report;
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/**
 * P1: failed requests of a handoff rollout and of a naive stop/start, under
 * the same keep-alive load on the same 3-host lab. P2: what the rollout costs
 * beyond the waits it is made of, from its own step timings.
 */
export async function benchRollout(report: (line: string) => void): Promise<Row[]> {
  const labs = [
    ['haproxy', '127.0.33'],
    // an HAProxy pair with different check timings, load through both frontends
    ['haproxy-pair', '127.0.91'],
    // the same pair with lb-b on a host of its own, reached over SSH (its socket and config there)
    ['haproxy-pair-ssh', '127.0.187'],
    ['alb', '127.0.32'],
  ] as const;
  // ROLLOUT_BALANCERS=haproxy-pair: one lab alone, to measure it again without the others
  const only = onlyNamed(
    'ROLLOUT_BALANCERS',
    labs.map(([b]) => b),
  );
  const rows: Row[] = [];
  for (const [balancer, subnet] of labs)
    if (only.includes(balancer))
      rows.push(...(await benchRolloutThrough(balancer, subnet, report)));
  return rows;
}

/** The same figures with deploy.yml naming HAProxy itself, or the ELBv2 endpoint in front of it. */
async function benchRolloutThrough(
  balancer: LabBalancer | 'haproxy-pair' | 'haproxy-pair-ssh',
  subnet: string,
  report: (line: string) => void,
): Promise<Row[]> {
  report(`rollout: starting a 3-host lab, balancer.kind ${balancer}`);
  const fleet = await startBenchFleet({
    hosts: 3,
    subnet,
    workDir: `/tmp/handoff-bench-rollout-${balancer}`,
    ...(balancer === 'haproxy-pair'
      ? { balancer: 'haproxy', pair: true }
      : balancer === 'haproxy-pair-ssh'
        ? { balancer: 'haproxy', pair: true, config: { peerOverSsh: true } }
        : { balancer }),
    report: (line) => report(`  ${line}`),
  });
  try {
    const { lab } = fleet;
    await Promise.all(lab.hosts.map((h) => lab.stageRelease(h, 'r2')));
    const load = loadAll(lab);
    const hostCpuBefore = await fleet.hostCpuMs();
    const machineBefore = await cpuTimes();
    const run = await fleet.deploy(['rollout', '--release', 'r2', '--json'], { rss: true });
    const machine = cpuShares(machineBefore, await cpuTimes());
    const hostCpu = (await fleet.hostCpuMs()) - hostCpuBefore;
    const handoff = await load.stop();
    if (run.code !== 0) throw new Error(`deploy rollout r2 exited ${run.code}: ${run.stderr}`);
    const result = resultOf(run.stdout);
    // BENCH_KEEP=DIR: the rollout's own NDJSON (every step and receipt event, timed), to read after
    const keep = process.env.BENCH_KEEP;
    if (keep) {
      await mkdir(keep, { recursive: true });
      await writeFile(path.join(keep, `rollout-${balancer}.ndjson`), run.stdout);
    }
    report(`handoff rollout under load (${balancer}): ${formatReport(handoff)}`);
    const naive = await naiveRollout(lab, 'r2');
    report(`naive stop/start under load: ${formatReport(naive)}`);
    const receiptMs = receiptMsPerHost(run.stdout);
    // a canary with a short bake, judged on HAProxy's counters: what the looks cost
    const canary = balancer === 'haproxy' ? await canaryRun(fleet) : undefined;

    const steps = result.hosts.flatMap((h) => h.steps);
    const waits = sum(steps.filter((s) => WAITS.includes(s.step)).map((s) => s.duration_ms));
    const hosts = result.hosts.length;
    const overhead = (result.elapsed_ms - waits) / hosts;
    const byStep = new Map<string, number[]>();
    for (const s of steps) byStep.set(s.step, [...(byStep.get(s.step) ?? []), s.duration_ms]);
    report(
      `step medians (ms): ${[...byStep].map(([k, v]) => `${k} ${Math.round(median(v))}`).join(', ')}`,
    );
    const phases = formatPhases(p2Phases(result, WAITS));
    report(`P2 by phase (ms per host, ${balancer}): ${phases}`);
    report(
      `P2's gaps by the steps around them (ms per host, ${balancer}): ${formatGaps(gapsByPair(result))}`,
    );
    report(`P2's steps by host (ms, ${balancer}): ${stepsByHost(result, WAITS)}`);
    const lease = leaseCost(run.stdout);
    const leaseMs = lease.takeMs + lease.releaseMs;
    report(`fleet lease (ms, ${balancer}): ${formatLeaseCost(lease)}`);
    const awaitOut = steps.filter((s) => s.step === 'await-out' && s.bound_ms);
    const worst = awaitOut.reduce(
      (w, s) => (s.duration_ms / (s.bound_ms ?? 1) > w.duration_ms / (w.bound_ms ?? 1) ? s : w),
      awaitOut[0] ?? { duration_ms: Number.NaN, bound_ms: Number.NaN },
    );
    report(
      `await-out per host (ms / bound): ${awaitOut.map((s) => `${s.duration_ms}/${s.bound_ms}`).join(', ')}`,
    );
    return [
      {
        figure: `P1 failed requests, handoff rollout (${balancer})`,
        value: `${handoff.failed} of ${handoff.total}`,
        baseline: `naive: ${naive.failed} of ${naive.total}`,
        goal: 'handoff 0',
        pass: handoff.failed === 0 && handoff.ok > 0,
      },
      {
        figure: `P1 failed requests, naive stop/start (${balancer} lab)`,
        value: `${naive.failed} of ${naive.total}`,
        baseline: '-',
        goal: 'naive > 0',
        pass: naive.failed > 0,
      },
      {
        figure: `P2 orchestration overhead per host (${hosts} hosts, ${balancer})`,
        value: ms(overhead),
        baseline: `${ms(result.elapsed_ms)} elapsed − ${ms(waits)} waits`,
        goal: `≤ ${OVERHEAD_GOAL_MS} ms`,
        pass: overhead <= OVERHEAD_GOAL_MS,
      },
      {
        figure: `P2 by phase, ms per host (${balancer})`,
        value: phases,
        baseline: '-',
        goal: 'recorded',
      },
      {
        // outside the rollout's elapsed (taken before its first step, given back after its
        // result), so beside P2, not in it; the renewals run in the background
        figure: `Fleet lease per rollout: take + release, every host (${balancer})`,
        value: ms(leaseMs),
        baseline: `${formatLeaseCost(lease)} beside the rollout`,
        goal: `< ${LEASE_GOAL_MS} ms`,
        pass: leaseMs < LEASE_GOAL_MS,
      },
      {
        figure: `Receipt per host: its two reads of the counters (${balancer})`,
        value: Number.isNaN(receiptMs)
          ? 'none per host (CloudWatch counts per target group)'
          : ms(receiptMs),
        baseline: '-',
        goal: 'recorded',
      },
      ...(canary
        ? [
            {
              figure: `Canary bake ${ms(CANARY_BAKE_MS)} on web-1 (${balancer}): its looks' reads, and past its duration`,
              value: `${canary.looks} looks, ${ms(canary.readMs)} reading`,
              baseline: `bake ran ${ms(canary.elapsedMs)}, ${ms(canary.elapsedMs - CANARY_BAKE_MS)} past ${ms(CANARY_BAKE_MS)}; ${canary.failed} failed of ${canary.total}`,
              goal: 'recorded',
              pass: canary.failed === 0,
            },
          ]
        : []),
      {
        figure: `P2 rollout process wall time (incl. startup, SSH connect; ${balancer})`,
        value: ms(run.wallMs),
        baseline: `${ms(result.elapsed_ms)} elapsed`,
        ratio: run.wallMs / result.elapsed_ms,
        goal: 'recorded',
      },
      {
        figure: `P2 CPU of the rollout: orchestrator + hosts (agents, services; ${balancer})`,
        value: `${ms(run.cpuMs ?? Number.NaN)} + ${ms(hostCpu)}`,
        baseline: `${ms(result.elapsed_ms)} elapsed`,
        goal: 'recorded',
      },
      {
        // P2's steps are mostly waits for processes on these two cores: a run the machine had
        // no CPU to spare for (the load's requests fewer, idle near 0, or stolen) is slower
        figure: `P2 the machine's CPUs during the rollout (${balancer})`,
        value: formatShares(machine),
        baseline: `${handoff.total} requests of load`,
        goal: 'recorded',
      },
      {
        figure: `P2 await-out measured ÷ bound (worst host; ${balancer})`,
        value: ms(worst.duration_ms),
        baseline: `${ms(worst.bound_ms ?? Number.NaN)} bound`,
        ratio: worst.duration_ms / (worst.bound_ms ?? Number.NaN),
        goal: '≤ 1.00×',
        pass: worst.duration_ms <= (worst.bound_ms ?? 0),
      },
    ];
  } finally {
    await fleet.stop();
  }
}
