import { writeFile } from 'node:fs/promises';
import {
  addReports,
  formatReport,
  startLoad,
  startWatchdogs,
  type Lab,
  type Load,
  type LoadReport,
} from '../lab/index.js';
import { startBenchFleet, type BenchFleet } from './fleet.js';
import { soakConfig, frontendsOf } from './soak-configs.js';
import { drainedHosts, formatOut, settledDrained, watchdogSummary } from './soak-hosts.js';
import { afterKill, HEAL_MS, type SoakState } from './soak-heal.js';
import { entryLine, FULL_ROLLOUTS, soakRows, type SoakEntry } from './soak-report.js';
import { soakSchedule, type SoakRollout } from './soak-schedule.js';
import type { Row } from './table.js';

const HOUR = 3_600_000;
/** keep-alive load, as the rollout bench sends it; bounded by the soak's own length */
const LOAD = { concurrency: 8, maxRequests: Number.MAX_SAFE_INTEGER, maxDurationMs: 4 * HOUR };

function soakCount(): number {
  const raw = process.env.SOAK_ROLLOUTS;
  const n = raw === undefined ? FULL_ROLLOUTS : Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`SOAK_ROLLOUTS must be a whole number ≥ 1, got ${raw}`);
  return n;
}

/**
 * `npm run bench -- soak`: N rollouts back to back on one 3-host lab with
 * every balancer (lb-a, lb-b, the ELBv2 endpoint), under keep-alive load
 * through lb-a all along (and lb-b while deploy.yml names the pair), every
 * host's watchdog ticking each second throughout. The mix is soakSchedule's.
 */
export async function benchSoak(report: (line: string) => void): Promise<Row[]> {
  const seed = Number(process.env.SOAK_SEED ?? 24);
  const schedule = soakSchedule(soakCount(), seed);
  report(`soak: ${schedule.length} rollouts (seed ${seed}), starting a 3-host lab on 127.0.98`);
  const fleet = await startBenchFleet({
    hosts: 3,
    subnet: '127.0.98',
    workDir: '/tmp/handoff-bench-soak',
    balancer: 'alb',
    // lb-b, behind the endpoint's second group too: whole seconds, slower than lb-a's 2s × 2
    pair: { interval: 2000, fall: 3, rise: 2, checkTimeout: 1000 },
    report: (line) => report(`  ${line}`),
  });
  const { lab } = fleet;
  const watchdogs = startWatchdogs(lab.hosts, { timeoutMs: 4 * HOUR });
  const main = startLoad({ url: frontendsOf(lab, 'haproxy')[0] ?? lab.url, ...LOAD });
  let ended = false;
  try {
    const entries: SoakEntry[] = [];
    const extra: LoadReport[] = [];
    const state: SoakState = { config: '', live: 'r1', killed: false };
    for (const rollout of schedule) {
      const entry = await soakOne(fleet, rollout, state, main, extra);
      entries.push(entry);
      report(entryLine(entry));
    }
    const lastKilled = entries.at(-1)?.run.killed === true;
    // lb-b is not told by a deploy.yml that names lb-a alone: its slower rise may still be settling
    const drained = await settledDrained(lab, lastKilled ? HEAL_MS : 30_000);
    const load = [await main.stop(), ...extra].reduce(addReports);
    report(`load over the soak: ${formatReport(load)}`);
    const watchdog = await watchdogSummary(lab, await watchdogs.stop());
    ended = true;
    for (const l of [...watchdog.restarts, ...watchdog.logLines]) report(`watchdog: ${l}`);
    return soakRows(entries, load, drained, watchdog);
  } finally {
    // a soak that threw must not leave its load hammering a lab that is gone for hours
    if (!ended) await Promise.all([main.stop(), watchdogs.stop()]);
    await fleet.stop();
  }
}

/** One rollout: its deploy.yml set up when it changes, its release staged, run, and counted. */
async function soakOne(
  fleet: BenchFleet,
  rollout: SoakRollout,
  state: SoakState,
  main: Load,
  extra: LoadReport[],
): Promise<SoakEntry> {
  const { lab } = fleet;
  const before = main.snapshot();
  const config = soakConfig(lab, rollout);
  if (config !== state.config) {
    await writeFile(fleet.configPath, config);
    const setup = await fleet.deploy(['setup']);
    if (setup.code !== 0) throw new Error(`deploy setup for #${rollout.index}: ${setup.stderr}`);
    state.config = config;
  }
  await Promise.all(lab.hosts.map((h) => lab.stageRelease(h, rollout.release)));
  const second = secondFrontendLoad(lab, rollout);
  const run = await afterKill(fleet, rollout, state);
  const lbB = await second?.stop();
  if (lbB) extra.push(lbB);
  if (run.live) state.live = run.live;
  state.killed = run.killed === true;
  const after = main.snapshot();
  return {
    rollout,
    run,
    requests: after.total - before.total + (lbB?.total ?? 0),
    failed: after.failed - before.failed + (lbB?.failed ?? 0),
    drainedAfter: (await drainedHosts(lab)).map(formatOut),
  };
}

/**
 * lb-b's clients, while deploy.yml names the pair. Nothing to wait for first:
 * lb-b routes to the servers its own checks have UP, as it did all along.
 */
function secondFrontendLoad(lab: Lab, rollout: SoakRollout): Load | undefined {
  const url = frontendsOf(lab, rollout.balancer)[1];
  return url ? startLoad({ url, ...LOAD }) : undefined;
}
