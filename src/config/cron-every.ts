import { formatDuration } from './kit/duration.js';

/**
 * What cron can run evenly. Cron fires on minutes of the hour, so a step must
 * divide the hour (`*\/7` fires at :56 and again at :00, 4 minutes later) and
 * cannot exceed it (`*\/120` is not a step cron knows). A watchdog faster than
 * once a minute runs several ticks per cron run, which must divide the minute
 * for the same reason. One rule for `deploy check` (the schema) and for the
 * cron line `deploy setup` writes (setup-files.ts).
 */

export type CronPlan =
  | { readonly ok: true; readonly schedule: string; readonly ticks: number }
  | { readonly ok: false; readonly reason: string };

const divisorsOf60 = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30];
const second = 1_000;
const minute = 60_000;
/** every value that works, ascending */
const workable = [
  ...divisorsOf60.map((s) => s * second),
  ...divisorsOf60.map((m) => m * minute),
  60 * minute,
];

export function cronPlan(everyMs: number): CronPlan {
  if (!workable.includes(everyMs)) return { ok: false, reason: refusal(everyMs) };
  if (everyMs < minute) return { ok: true, schedule: '* * * * *', ticks: minute / everyMs };
  const minutes = everyMs / minute;
  if (minutes === 60) return { ok: true, schedule: '0 * * * *', ticks: 1 };
  return { ok: true, schedule: minutes === 1 ? '* * * * *' : `*/${minutes} * * * *`, ticks: 1 };
}

function refusal(everyMs: number): string {
  const below = workable.filter((ms) => ms < everyMs).at(-1);
  const above = workable.find((ms) => ms > everyMs);
  const use = [below, above]
    .filter((ms) => ms !== undefined)
    .map(formatDuration)
    .join(' or ');
  return `${formatDuration(everyMs)} cannot be run evenly from cron (it must divide a minute or an hour, at most 1h); use ${use}`;
}
