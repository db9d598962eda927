import { until } from '../lab/index.js';
import { awaitHealed, drainedHosts } from './soak-hosts.js';
import type { BenchFleet } from './fleet.js';
import { runSoakRollout, type SoakRun } from './soak-rollout.js';
import type { SoakRollout } from './soak-schedule.js';

/** a killed rollout's marker lease is twice the host window (~74 s on the lab): the watchdog's bound */
export const HEAL_MS = 180_000;
/** a healed host's health answers 200 again: the lab's HAProxies see it UP within seconds */
const SETTLE_MS = 15_000;

export interface SoakState {
  /** the deploy.yml set up last */
  config: string;
  /** what every host runs, as far as the rollouts know */
  live: string;
  /** the last rollout was SIGKILLed */
  killed: boolean;
}

/** what a rollout refuses to repair: the host's services are down, not only drained */
const NOT_VERIFYING = 'was left drained and does not verify';

/**
 * The rollout after a SIGKILL repairs a host the kill left drained (preflight)
 * when its services still verify. When the kill landed between stop and start
 * they do not, and it refuses, by design: then the host's watchdog heals it once
 * the marker's lease is over (starts the release, removes the marker), and the
 * rollout runs again. With drain.method deregister the watchdog cannot register
 * the target (docs/watchdog.md): it leaves the healthy host marked, and the
 * rollout's repair registers it. What is still out of rotation after the heal
 * with no marker gets `deploy undrain HOST`, counted apart as a step by hand.
 */
export async function afterKill(
  fleet: BenchFleet,
  r: SoakRollout,
  state: SoakState,
): Promise<SoakRun> {
  const first = await runSoakRollout(fleet, r, state.live);
  if (first.ok || !state.killed || !first.note.includes(NOT_VERIFYING)) return first;
  const started = Date.now();
  const marked = await awaitHealed(fleet.lab, HEAL_MS);
  const healed = Date.now() - started;
  if (marked.length > 0)
    return {
      ...first,
      note: `${first.note}; the watchdog had not healed ${marked.join(', ')} after ${healed} ms`,
    };
  // a marked host is the rollout's to repair; one out of rotation without a marker is not,
  // once the balancers' checks had the time to bring a healed host back (rise × inter)
  let out: string[] = [];
  const unmarkedOut = async () =>
    (out = (await drainedHosts(fleet.lab)).filter((h) => !h.marker).map((h) => h.name)).length ===
    0;
  await until(unmarkedOut, SETTLE_MS);
  for (const host of out) {
    const u = await fleet.deploy(['undrain', host]);
    if (u.code !== 0)
      return {
        ...first,
        note: `${first.note}; deploy undrain ${host} exited ${u.code}: ${u.stderr}`,
      };
  }
  const again = await runSoakRollout(fleet, r, state.live);
  const byHand = out.length > 0 ? `, then deploy undrain ${out.join(', ')} by hand` : '';
  return {
    ...again,
    wallMs: first.wallMs + (Date.now() - started),
    undrainedByHand: out,
    note: `refused at first (a host the kill left does not verify), the watchdog healed it ${(healed / 1000).toFixed(0)} s later${byHand}; then: ${again.note}`,
  };
}
