import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '../../clock.js';
import { checkLease } from './check-lease.js';
import type { Config } from '../../config/types.js';
import { canaryTrafficWarnings } from './check-canary.js';
import { InvariantError } from '../../errors.js';
import { balancersJson, renderModels } from '../timing-text.js';
import { fleetTiming, timingBaseFromConfig, type FleetTiming } from '../../timing/index.js';
import { kindWarnings, settingsOfBalancers, type CheckedBalancers } from './check-balancers.js';
import type { Balancer } from '../../balancer/balancer.js';
import type { CheckedSettings } from '../../balancer/kind.js';
import { stopProofMethods } from '../../host/stop-proof.js';
import {
  killedAtLastStop,
  readLastStops,
  renderLastStops,
  unreadLive,
  type ReadLastStop,
} from './check-last-stops.js';
import type { Output } from '../output.js';

/** the finding --strict fails on when a service needed SIGKILL at its last stop */
const KILLED_AT_STOP = 'stop-needed-sigkill';

interface StopProofLine {
  readonly service: string;
  readonly proven: boolean;
  /** what must hold after stop, within drain.stop_timeout */
  readonly by: readonly string[];
}

/** Which services a rollout proves stopped, and by what. */
function stopProofs(config: Config): StopProofLine[] {
  return config.services.map((s) => {
    const by = stopProofMethods(s, config.runtime);
    return { service: s.name, proven: by.length > 0, by };
  });
}

function renderStopProofs(lines: readonly StopProofLine[], stopTimeout: number): string {
  const width = Math.max(...lines.map((l) => l.service.length));
  const rows = lines.map(
    (l) =>
      `  ${l.service.padEnd(width)}  ${l.proven ? l.by.join(', ') : 'NOT proven (stop_proof: false): a stop that exits 0 is taken at its word'}`,
  );
  return [`stop proof: after stop, within ${stopTimeout / 1000}s`, ...rows].join('\n');
}

/** --live's warnings; the canary's estimate counts through the balancers --live opened */
async function liveWarnings(
  config: Config,
  each: readonly CheckedSettings[],
  live: Balancer,
  wait: (ms: number) => Promise<void>,
): Promise<string[]> {
  return [
    ...(await kindWarnings(config, each)),
    ...(await canaryTrafficWarnings(config, systemClock, wait, () => Promise.resolve(live))),
  ];
}

/** Print the timeline and the invariants; throw InvariantError (exit 1) when one fails. */
export async function runCheck(
  config: Config,
  out: Output,
  options: {
    live: boolean;
    strict: boolean;
    readLastStop?: ReadLastStop;
    /** the canary's traffic estimate watches the counters this long (tests: no wait) */
    wait?: (ms: number) => Promise<void>;
    env?: Readonly<Record<string, string | undefined>>;
  },
): Promise<void> {
  // the lease block first: a store that cannot be used is bad input, before any output
  const lease = await checkLease(config, options.live, options.env ?? process.env);
  const checked = await settingsOfBalancers(config, options.live, out);
  try {
    await checkBalancers(config, out, options, lease, checked);
  } finally {
    await checked.live?.close().catch(() => undefined);
  }
}

type CheckOptions = Parameters<typeof runCheck>[2];

async function checkBalancers(
  config: Config,
  out: Output,
  options: CheckOptions,
  lease: Awaited<ReturnType<typeof checkLease>>,
  { each, live }: CheckedBalancers,
): Promise<void> {
  const timing = fleetTiming(timingBaseFromConfig(config), each);
  const { models, slowest, bounds } = timing;
  const model = slowest.model;
  const failing = models.flatMap((m) =>
    m.model.invariants.filter((i) => !i.ok && (i.severity === 'error' || options.strict)),
  );
  const settings = each.find((e) => e.name === slowest.name) ?? each[0];
  printTiming(out, each, timing, settings);
  const warnings = live ? await liveWarnings(config, each, live, options.wait ?? sleep) : [];
  for (const message of warnings) out.emit({ level: 'warn', event: 'check.balancers', message });
  const proofs = stopProofs(config);
  out.text('');
  out.text(renderStopProofs(proofs, config.drain.stopTimeout));
  const lastStops =
    options.live && options.readLastStop
      ? await readLastStops(config, options.readLastStop)
      : undefined;
  if (lastStops) renderLastStops(lastStops, out);
  out.text('');
  for (const line of lease.lines) out.text(line);
  const killed = lastStops && options.strict ? killedAtLastStop(lastStops) : [];
  const unread = lastStops && unreadLive(lastStops, options.strict);
  out.result(failing.length === 0 && killed.length === 0 && !unread, {
    timeline: model.timeline,
    invariants: model.invariants,
    settings: settings?.settings,
    balancers: balancersJson(timing, each),
    bounds: { await_out: bounds.awaitOut, await_in: bounds.awaitIn },
    ...(warnings.length > 0 ? { warnings } : {}),
    stop_proof: proofs,
    lease: lease.json,
    ...(lastStops ? { last_stops: lastStops } : {}),
  });
  throwFailing(failing, killed.length > 0, options.strict);
  if (unread) throw unread;
}

/** where each balancer's settings were read, then the models */
function printTiming(
  out: Output,
  each: readonly CheckedSettings[],
  timing: FleetTiming,
  settings: CheckedSettings | undefined,
): void {
  out.text(
    timing.models.length > 1
      ? `${each.map((e) => `${e.name}: health-check settings ${e.source}`).join('\n')}\ntimeline of the slowest, ${timing.slowest.name}:\n`
      : `health-check settings ${settings?.source ?? ''}\n`,
  );
  out.text(renderModels(timing));
}

/** exit 1 naming every failing invariant (a service killed at its last stop is one, with --strict) */
function throwFailing(
  failing: readonly { readonly id: string }[],
  killed: boolean,
  strict: boolean,
): void {
  if (failing.length > 0 || killed) {
    const ids = [...new Set(failing.map((i) => i.id)), ...(killed ? [KILLED_AT_STOP] : [])];
    throw new InvariantError(
      ids,
      `invariant ${ids.join(', ')} ${ids.length === 1 ? 'fails' : 'fail'}${strict ? ' (--strict)' : ''}`,
    );
  }
}
