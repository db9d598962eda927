import type { SoakRace } from './soak-schedule.js';

/** How one `deploy` process ended, and what it printed. */
export interface Exit {
  readonly code: number;
  readonly signal?: string;
  readonly stdout: string;
  readonly stderr: string;
}

/** The result line of `--json`, or undefined when there is none (killed, refused before it). */
export function resultLine(stdout: string): Record<string, unknown> | undefined {
  for (const line of stdout.trim().split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (parsed.event === 'result') return parsed;
  }
  return undefined;
}

export const deployed = (e: Exit): boolean => e.code === 0 && resultLine(e.stdout)?.ok === true;
const said = (e: Exit, text: string): boolean => `${e.stdout}\n${e.stderr}`.includes(text);
/** why it failed, in one line */
export function tail(e: Exit): string {
  const result = resultLine(e.stdout);
  const line = (result?.error as string | undefined) ?? e.stderr.trim().split('\n').at(-1) ?? '';
  // the result's own line names the host and step; each host's error says what went wrong there
  const hosts = (result?.hosts ?? []) as { host?: string; error?: string }[];
  const why = hosts.filter((h) => h.error).map((h) => `${h.host}: ${h.error}`);
  return why.length > 0 ? `${line} (${why.join('; ')})` : line;
}

/** exit 3, naming the holder (src/rollout/lease/fleet-lease.ts, describeLease) */
const refused = (e: Exit, holder: string): boolean =>
  e.code === 3 && said(e, 'the fleet lease is held') && said(e, `by deploy rollout ${holder} by `);

/** queued behind the winner, then stood down: its result says superseded */
const superseded = (e: Exit, holder: string): boolean =>
  e.code === 0 &&
  resultLine(e.stdout)?.superseded === true &&
  said(e, `waiting for the fleet lease, held by deploy rollout ${holder} by `);

/**
 * Who won a race for the fleet lease, when exactly one deployed: `first`
 * was started 0.3 s before `second`. refused: both for `release`, neither
 * queued. wait-lease: the second queued for `older`; it either stood down
 * behind the first, or won and the first was refused. Undefined otherwise.
 */
export function judgeRace(
  race: SoakRace,
  release: string,
  older: string,
  first: Exit,
  second: Exit,
): { note: string; live: string } | undefined {
  const outcomes: [boolean, string, string][] =
    race === 'refused'
      ? [
          [
            deployed(first) && refused(second, release),
            'first deployed, second refused (exit 3)',
            release,
          ],
          [
            deployed(second) && refused(first, release),
            'second deployed, first refused (exit 3)',
            release,
          ],
        ]
      : [
          [
            deployed(first) && superseded(second, release),
            'first deployed, second queued then superseded',
            release,
          ],
          [
            deployed(second) && refused(first, older),
            'second (queued) won, first refused (exit 3)',
            older,
          ],
        ];
  const won = outcomes.find(([ok]) => ok);
  return won && { note: won[1], live: won[2] };
}
