import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEtcd } from '../lab/etcd.js';
import { formatLeaseCost, leaseCost, type LeaseCost } from './lease-cost.js';
import { CPU_GOAL_MS, rssGoalMb } from './scale-goals.js';
import { startSimFleet } from './sim/fleet.js';
import { mb, ms, type Row } from './table.js';

/** the lab etcd member the scale bench keeps its fleet lease in (127.0.132: this bench's) */
const ETCD_ADDRESS = '127.0.132.1';
const TAKE_RELEASE_GOAL_MS = 50;

/** one `deploy rollout --json` of scale.ts's, run by its caller (the real CLI under /usr/bin/time) */
type Timed = (
  args: readonly string[],
  workDir: string,
  exitCodes?: readonly number[],
) => Promise<{
  readonly wallMs: number;
  readonly rssKib: number;
  readonly cpuMs: number;
  readonly stdout: string;
}>;

interface EtcdRun {
  readonly hosts: number;
  readonly dead: number;
  readonly lease: LeaseCost;
  readonly cpuMs: number;
  readonly rssKib: number;
  /** deployed, skipped and the exit code, for a run with dead hosts */
  readonly outcome?: { deployed: number; skipped: number; exitCode: number };
}

/**
 * scale.ts's `--batch 10%` rollouts again with `lease.store: etcd` (one lab
 * etcd member, Debian's etcd-server): at each size, and over the dead-hosts
 * fleet (1 % refuse SSH, `rollout.unreachable: skip`). The lease's take,
 * release and renewals come from the rollout's own `lease.taken` and
 * `lease.released` events; the take includes reaching etcd. `verify` takes
 * no lease, so it is not run again.
 */
export async function benchScaleEtcd(
  sizes: readonly number[],
  deadFleet: number,
  timed: Timed,
  report: (line: string) => void,
): Promise<Row[]> {
  const workDir = await mkdtemp(path.join(tmpdir(), 'handoff-bench-scale-etcd-'));
  const etcd = await startEtcd({
    addresses: [ETCD_ADDRESS],
    workDir: path.join(workDir, 'etcd'),
    // every take and release is a write: fsynced, as in production
    fsync: true,
  });
  try {
    const runs: EtcdRun[] = [];
    for (const hosts of sizes) runs.push(await rolloutOn(hosts, 0, etcd.endpoints, timed, report));
    if (deadFleet > 0) runs.push(await rolloutOn(deadFleet, 0.01, etcd.endpoints, timed, report));
    return runs.flatMap(rowsOf);
  } finally {
    await etcd.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

async function rolloutOn(
  hosts: number,
  deadShare: number,
  endpoints: readonly string[],
  timed: Timed,
  report: (line: string) => void,
): Promise<EtcdRun> {
  const workDir = await mkdtemp(path.join(tmpdir(), `handoff-bench-scale-etcd-${hosts}-`));
  const fleet = await startSimFleet({
    hosts,
    workDir,
    rttMs: 20,
    checkMs: 200,
    maxConnections: hosts,
    minHealthy: hosts === 1 ? 0 : 1,
    allowDowntime: hosts === 1,
    // each run its own prefix: a lease one run left is never the next one's
    lease: { store: 'etcd', endpoints: [...endpoints], prefix: `/bench-${hosts}-${Date.now()}` },
    ...(deadShare > 0 && { faults: { refuse: deadShare }, skipUnreachable: '1%' }),
  });
  try {
    const run = await timed(
      ['rollout', '--release', 'r2', '--batch', '10%', '--json', '-c', fleet.configPath],
      workDir,
      deadShare > 0 ? [4] : [0],
    );
    const lease = leaseCost(run.stdout);
    const outcome = deadShare > 0 ? outcomeOf(run.stdout) : undefined;
    report(
      `scale ${hosts}${fleet.faults.size ? ` with ${fleet.faults.size} dead` : ''}, lease in etcd: rollout ${ms(run.wallMs)} (CPU ${ms(run.cpuMs)}, ${mb(run.rssKib)}); lease ${formatLeaseCost(lease)}${outcome ? `; ${outcome.deployed} deployed, ${outcome.skipped} skipped, exit ${outcome.exitCode}` : ''}`,
    );
    return {
      hosts,
      dead: fleet.faults.size,
      lease,
      cpuMs: run.cpuMs,
      rssKib: run.rssKib,
      ...(outcome && { outcome }),
    };
  } finally {
    await fleet.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

function outcomeOf(stdout: string) {
  const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
    hosts?: { result: string }[];
    skipped?: unknown[];
    exit_code?: number;
  };
  return {
    deployed: (result.hosts ?? []).filter((h) => h.result === 'deployed').length,
    skipped: (result.skipped ?? []).length,
    exitCode: result.exit_code ?? -1,
  };
}

function rowsOf(r: EtcdRun): Row[] {
  const what = `${r.hosts} hosts${r.dead ? `, ${r.dead} dead` : ''}`;
  const takeRelease = r.lease.connectMs + r.lease.takeMs + r.lease.releaseMs;
  const perRenewal = r.lease.renewals ? r.lease.renewMs / r.lease.renewals : 0;
  const rows: Row[] = [
    {
      figure: `etcd lease: reach + take + release, ${what}`,
      value: ms(takeRelease),
      baseline: `${r.lease.renewals} renewals, ${perRenewal.toFixed(1)} ms each`,
      goal: `≤ ${TAKE_RELEASE_GOAL_MS} ms`,
      pass: takeRelease <= TAKE_RELEASE_GOAL_MS,
    },
  ];
  if (r.hosts < 100) return rows;
  const cpu = r.cpuMs / r.hosts;
  rows.push(
    {
      figure: `orchestrator CPU per host, rollout of ${what} (lease in etcd)`,
      value: `${cpu.toFixed(1)} ms`,
      baseline: '–',
      goal: `≤ ${CPU_GOAL_MS} ms`,
      pass: cpu <= CPU_GOAL_MS,
    },
    {
      figure: `orchestrator peak RSS, rollout of ${what} (lease in etcd)`,
      value: mb(r.rssKib),
      baseline: '–',
      goal: `≤ ${rssGoalMb(r.hosts)} MB`,
      pass: r.rssKib / 1024 <= rssGoalMb(r.hosts),
    },
  );
  if (r.outcome)
    rows.push({
      figure: `rollout of ${what} (unreachable: skip, lease in etcd): deployed, skipped, exit`,
      value: `${r.outcome.deployed}, ${r.outcome.skipped}, ${r.outcome.exitCode}`,
      baseline: '–',
      goal: `${r.hosts - r.dead}, ${r.dead}, 4`,
      pass:
        r.outcome.deployed === r.hosts - r.dead &&
        r.outcome.skipped === r.dead &&
        r.outcome.exitCode === 4,
    });
  return rows;
}
