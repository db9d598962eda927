import type { LoadReport } from '../lab/index.js';
import type { SoakWatchdog } from './soak-hosts.js';
import type { SoakRun } from './soak-rollout.js';
import { describeRollout, type SoakRollout } from './soak-schedule.js';
import { median, ms, type Row } from './table.js';

/** the issue's goal row: 0 failed of at least this many requests over 50 rollouts */
export const REQUEST_GOAL = 1_000_000;
export const FULL_ROLLOUTS = 50;

export interface SoakEntry {
  readonly rollout: SoakRollout;
  readonly run: SoakRun;
  /** requests sent from just before its deploy.yml was set up to its end, every frontend */
  readonly requests: number;
  readonly failed: number;
  /** hosts out of rotation right after it */
  readonly drainedAfter: readonly string[];
}

/** Failed requests by kind: non-2xx statuses and socket errors, in one record. */
export const failuresByKind = (r: LoadReport): Record<string, number> => ({
  ...r.statuses,
  ...r.errors,
});

const kinds = (r: LoadReport): string => {
  const entries = Object.entries(failuresByKind(r));
  return entries.length === 0 ? 'none' : entries.map(([k, n]) => `${k} ${n}`).join(', ');
};

/** One line per rollout, as the soak goes. */
export function entryLine(e: SoakEntry): string {
  const drained = e.drainedAfter.length > 0 ? `; left out: ${e.drainedAfter.join(', ')}` : '';
  return `${describeRollout(e.rollout)}: ${e.run.ok ? 'ok' : 'FAILED'} in ${ms(e.run.wallMs)}, ${e.run.note}; ${e.failed} failed of ${e.requests}${drained}`;
}

export function soakRows(
  entries: readonly SoakEntry[],
  load: LoadReport,
  drainedAtEnd: readonly string[],
  watchdog: SoakWatchdog,
): Row[] {
  const count = entries.length;
  const short = count < FULL_ROLLOUTS;
  const bad = entries.filter((e) => !e.run.ok);
  const kills = entries.filter((e) => e.rollout.killAfterMs !== undefined);
  const races = entries.filter((e) => e.rollout.race);
  const walls = entries.map((e) => e.run.wallMs);
  const byHand = entries.flatMap((e) =>
    (e.run.undrainedByHand ?? []).map((h) => `${h} before #${e.rollout.index}`),
  );
  return [
    {
      figure: `Failed requests over ${count} rollouts${short ? ` (short run; the goal is over ${FULL_ROLLOUTS})` : ''}`,
      value: `${load.failed} of ${load.total}`,
      baseline: `${(load.total / (load.durationMs / 1000)).toFixed(0)} req/s over ${ms(load.durationMs)}`,
      goal: `0 of ≥ ${REQUEST_GOAL.toLocaleString('en')}`,
      pass: load.failed === 0 && (short || load.total >= REQUEST_GOAL),
    },
    { figure: 'Failures by kind', value: kinds(load), baseline: '-', goal: 'none' },
    {
      figure: 'Rollouts that did what their kind must',
      value: `${count - bad.length} of ${count}`,
      baseline: bad.map((e) => `#${e.rollout.index}: ${e.run.note}`).join('; ') || '-',
      goal: 'all',
      pass: bad.length === 0,
    },
    {
      figure: 'SIGKILLs that landed mid-rollout; races with exactly one deployer',
      value: `${kills.filter((e) => e.run.killed).length} of ${kills.length}; ${races.filter((e) => e.run.ok).length} of ${races.length}`,
      baseline: '-',
      goal: 'recorded',
    },
    {
      figure: 'Hosts a kill left that neither the next rollout nor the watchdog healed',
      value: String(byHand.length),
      baseline: byHand.length > 0 ? `deploy undrain by hand: ${byHand.join('; ')}` : '-',
      goal: '0',
      pass: byHand.length === 0,
    },
    {
      figure: 'Hosts left out of rotation at the end',
      value: String(drainedAtEnd.length),
      baseline: drainedAtEnd.join(', ') || '-',
      goal: '0',
      pass: drainedAtEnd.length === 0,
    },
    {
      figure: 'Watchdog restarts (audit `watchdog.restart <service>` lines)',
      value: String(watchdog.restarts.length),
      baseline: `${watchdog.heals.length} heal lines; ${watchdog.logLines.length} restart/gave-up log lines`,
      goal: '0',
      pass: watchdog.restarts.length === 0 && watchdog.logLines.length === 0,
    },
    {
      figure: 'Rollout wall time: min / median / max',
      value: `${ms(Math.min(...walls))} / ${ms(median(walls))} / ${ms(Math.max(...walls))}`,
      baseline: `${ms(walls.reduce((a, b) => a + b, 0))} in all`,
      goal: 'recorded',
    },
    ...entries.map((e): Row => ({
      figure: describeRollout(e.rollout),
      value: ms(e.run.wallMs),
      baseline: `${e.run.note}; ${e.failed} failed of ${e.requests}`,
      goal: 'recorded',
      pass: e.run.ok && e.failed === 0,
    })),
  ];
}
