import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import type { Config } from '../config/types.js';
import { messageOf } from '../errors.js';
import { appendAudit } from '../host/audit.js';
import { removeDrainMarker, type DrainMarker } from '../host/drain-marker.js';
import { runChecks } from '../host/checks/run.js';
import type { HostExec } from '../host/exec.js';
import { readCurrentRelease } from '../host/layout.js';
import { createRuntime } from '../host/runtime/create.js';
import { runtimeSettings } from '../host/runtime/runtime.js';
import type { Log } from '../log.js';
import type { WatchdogState } from './state.js';

/** between two passes of the live release's checks */
const PASS_GAP = 500;

export interface Heal {
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Log;
  readonly exec?: HostExec;
  /** the host lock's signal: the tick holds it while it heals */
  readonly signal: AbortSignal;
  readonly marker: DrainMarker;
  readonly state: WatchdogState;
}

export type HealOutcome = 'undrained' | 'started' | 'not-healthy' | 'no-release' | 'unregistered';

/**
 * A rollout died and left this host drained (its marker names its release,
 * its lease is over, nobody holds the lock): finish the job. If the live
 * release's services pass `successes_before_healthy` checks in a row, remove
 * the marker; if not, start them (once per marker) and undrain only on a later
 * tick that sees them pass. With drain.method deregister the target is out of
 * the balancer's group and the watchdog cannot register it: healthy, the host
 * stays drained (said once) for the next rollout's repair or `deploy undrain`. Every step is an audit line and one ERROR line.
 * Loaded only on that path: a quiet tick never reads this file.
 */
export async function heal(h: Heal): Promise<{ outcome: HealOutcome; state: WatchdogState }> {
  const { config, marker } = h;
  const host = hostname();
  const say = sayer(h, host);
  const release = await readCurrentRelease(config.host.root);
  if (!release) {
    if (h.state.healStarted !== marker.since)
      await say('check', 'failed', 'no release is live: left drained; deploy one', '-');
    return { outcome: 'no-release', state: { ...h.state, healStarted: marker.since } };
  }
  const runtime = createRuntime(runtimeSettings(config), release, h.exec);
  const failing = await passes(h, runtime, release);
  if (failing.length === 0 && config.drain.method === 'deregister') {
    // out of the target group, the host is out of rotation whatever its marker says: the
    // marker stays, so capacity counts it out and the next rollout repairs it (it registers)
    if (h.state.healPassed !== marker.since)
      await say(
        'check',
        'ok',
        `${release} passes ${config.watchdog.successesBeforeHealthy} checks in a row, but with drain.method: deregister the watchdog cannot reach the balancer to register the target: left drained; the next rollout registers it after its own verify, or run 'deploy undrain ${host}'`,
        release,
      );
    return { outcome: 'unregistered', state: { ...h.state, healPassed: marker.since } };
  }
  if (failing.length === 0) {
    await removeDrainMarker(config.host.state);
    await say(
      'undrain',
      'ok',
      `${release} passes ${config.watchdog.successesBeforeHealthy} checks in a row: undrained`,
      release,
    );
    const { healStarted: _done, expiredMarker: _said, healPassed: _passed, ...rest } = h.state;
    return { outcome: 'undrained', state: rest };
  }
  if (h.state.healStarted === marker.since) return { outcome: 'not-healthy', state: h.state };
  let result: 'ok' | 'failed' = 'ok';
  let why = '';
  try {
    await runtime.start(undefined, { signal: h.signal });
  } catch (error) {
    result = 'failed';
    why = `: ${messageOf(error)}`;
  }
  await say(
    'start',
    result,
    `${release} fails its checks (${failing.join(', ')}): ${result === 'ok' ? 'started it; it is undrained once it passes' : `could not start it${why}; left drained`}`,
    release,
  );
  return { outcome: 'started', state: { ...h.state, healStarted: marker.since } };
}

type Say = (
  step: string,
  result: 'ok' | 'failed',
  detail: string,
  release: string,
) => Promise<void>;

/** Each heal step: one ERROR line and one audit line (an audit that cannot be written is a warning). */
function sayer(h: Heal, host: string): Say {
  const { config, clock, log, marker } = h;
  const what = `the drain marker of a dead rollout (${marker.by}, release ${marker.release ?? '?'}) expired at ${marker.until} and nobody holds the lock`;
  return async (step, result, detail, release) => {
    log.emit({ level: 'error', event: 'watchdog.heal', message: `${what}: ${detail}` });
    await appendAudit(config.host.root, {
      release,
      step: `watchdog.heal ${step}`,
      start: new Date(clock.now()).toISOString(),
      duration_ms: 0,
      result,
      who: `watchdog@${host}`,
      detail,
    }).catch((error: unknown) =>
      log.emit({
        level: 'warn',
        event: 'watchdog.heal',
        message: `could not append an audit line: ${messageOf(error)}`,
      }),
    );
  };
}

/** The services that did not pass `successes_before_healthy` checks in a row (none: healthy). */
async function passes(
  h: Heal,
  runtime: ReturnType<typeof createRuntime>,
  release: string,
): Promise<string[]> {
  const { config, clock } = h;
  for (let n = 0; n < config.watchdog.successesBeforeHealthy; n++) {
    if (n > 0) await clock.sleep(PASS_GAP, h.signal);
    // the services answer 503 while drained: that counts as answering, as in a rollout's verify
    const results = await runChecks(config.services, {
      clock,
      state: config.host.state,
      runtime,
      release,
      signal: h.signal,
    });
    const failing = results
      .filter(({ result: r }) => !r.ok && r.draining !== true)
      .map((r) => r.service.name);
    if (failing.length > 0) return failing;
  }
  return [];
}
