import { writeFile } from 'node:fs/promises';
import {
  addReports,
  formatReport,
  startLoad,
  type Lab,
  type Load,
  type LoadReport,
} from '../lab/index.js';
import { soakConfig, frontendsOf } from './soak-configs.js';
import {
  drainedHosts,
  formatOut,
  settledDrained,
  watchdogSummary,
  type SoakWatchdog,
} from './soak-hosts.js';
import { afterKill, HEAL_MS } from './soak-heal.js';
import { labelled, labelledReport, LOAD, startSoakLabs, type SoakLab } from './soak-labs.js';
import { entryLine, FULL_ROLLOUTS, soakRows, type SoakEntry } from './soak-report.js';
import { soakSchedule, type SoakRollout } from './soak-schedule.js';
import type { Row } from './table.js';

function soakCount(): number {
  const raw = process.env.SOAK_ROLLOUTS;
  const n = raw === undefined ? FULL_ROLLOUTS : Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`SOAK_ROLLOUTS must be a whole number ≥ 1, got ${raw}`);
  return n;
}

/**
 * `npm run bench -- soak`: N rollouts back to back on the soak's two labs
 * (soak-labs.ts): the command runtime's with every balancer (lb-a, lb-b, the
 * ELBv2 endpoint), the compose runtime's with real containers behind lb-a,
 * under keep-alive load through each lab's lb-a all along (and lb-b while
 * deploy.yml names the pair), every host's watchdog ticking throughout (each
 * second; the compose lab's every 5 s, soak-labs.ts). The mix is soakSchedule's.
 */
export async function benchSoak(report: (line: string) => void): Promise<Row[]> {
  const seed = Number(process.env.SOAK_SEED ?? 24);
  const schedule = soakSchedule(soakCount(), seed);
  const onCompose = schedule.filter((r) => r.runtime === 'compose').length;
  report(`soak: ${schedule.length} rollouts (seed ${seed}), ${onCompose} on the compose runtime`);
  const labs = await startSoakLabs(report);
  const all = [labs.command, labs.compose];
  let ended = false;
  try {
    const entries: SoakEntry[] = [];
    const extra: LoadReport[] = [];
    for (const rollout of schedule) {
      const entry = await soakOne(labs[rollout.runtime], rollout, all, extra);
      entries.push(entry);
      report(entryLine(entry));
    }
    // lb-b is not told by a deploy.yml that names lb-a alone: its slower rise may still be settling
    const drained = await Promise.all(
      all.map(async (l) =>
        (await settledDrained(l.fleet.lab, l.state.killed ? HEAL_MS : 30_000)).map((h) =>
          labelled(l, h),
        ),
      ),
    );
    const load = [
      ...(await Promise.all(all.map(async (l) => labelledReport(l, await l.main.stop())))),
      ...extra,
    ].reduce(addReports);
    report(`load over the soak: ${formatReport(load)}`);
    const watchdog = mergeWatchdogs(
      await Promise.all(
        all.map(async (l) => watchdogSummary(l.fleet.lab, await l.watchdogs.stop())),
      ),
    );
    ended = true;
    for (const l of [...watchdog.restarts, ...watchdog.logLines]) report(`watchdog: ${l}`);
    return soakRows(entries, load, drained.flat(), watchdog);
  } finally {
    // a soak that threw must not leave its load hammering labs that are gone for hours
    if (!ended) await Promise.all(all.flatMap((l) => [l.main.stop(), l.watchdogs.stop()]));
    await Promise.all(all.map((l) => l.fleet.stop()));
  }
}

const mergeWatchdogs = (s: readonly SoakWatchdog[]): SoakWatchdog => ({
  restarts: s.flatMap((w) => w.restarts),
  heals: s.flatMap((w) => w.heals),
  logLines: s.flatMap((w) => w.logLines),
});

/**
 * One rollout on its lab: its deploy.yml set up when it changes, its release
 * staged, run, and counted over every lab's clients (the other lab's too: a
 * request that fails anywhere while it runs is its).
 */
async function soakOne(
  on: SoakLab,
  rollout: SoakRollout,
  all: readonly SoakLab[],
  extra: LoadReport[],
): Promise<SoakEntry> {
  const { fleet, state } = on;
  const { lab } = fleet;
  const before = all.map((l) => l.main.snapshot());
  const config = soakConfig(lab, rollout);
  if (config !== state.config) {
    await writeFile(fleet.configPath, config);
    const setup = await fleet.deploy(['setup']);
    if (setup.code !== 0) throw new Error(`deploy setup for #${rollout.index}: ${setup.stderr}`);
    state.config = config;
  }
  await fleet.stage(rollout.release);
  const second = secondFrontendLoad(lab, rollout);
  const run = await afterKill(fleet, rollout, state);
  const lbB = await second?.stop();
  if (lbB) extra.push(lbB);
  if (run.live) state.live = run.live;
  state.killed = run.killed === true;
  const after = all.map((l) => l.main.snapshot());
  const delta = (pick: (s: (typeof after)[number]) => number): number =>
    after.reduce((sum, s, i) => sum + pick(s) - pick(before[i] ?? s), 0);
  return {
    rollout,
    run,
    requests: delta((s) => s.total) + (lbB?.total ?? 0),
    failed: delta((s) => s.failed) + (lbB?.failed ?? 0),
    drainedAfter: (await drainedHosts(lab)).map((h) => labelled(on, formatOut(h))),
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
