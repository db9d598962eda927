import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import type { Config } from '../config/types.js';
import { LockHeldError, OperationError, messageOf } from '../errors.js';
import { appendAudit } from '../host/audit.js';
import { runCheck } from '../host/checks/run.js';
import { isExpired, readDrainMarker } from '../host/drain-marker.js';
import type { HostExec } from '../host/exec.js';
import { readCurrentRelease } from '../host/layout.js';
import { acquireHostLock } from '../host/lock.js';
import { lockWanted } from '../host/lock-intent.js';
import { createRuntime } from '../host/runtime/create.js';
import { runtimeSettings } from '../host/runtime/runtime.js';
import { StateStore } from '../host/state-store.js';
import { schmittTrigger } from '../hysteresis/index.js';
import type { Log } from '../log.js';
import { decide } from './decide.js';
import { forgetStreaks, freshState, watchdogStateSchema, type WatchdogState } from './state.js';

export interface TickOptions {
  readonly clock: Clock;
  readonly log: Log;
  readonly exec?: HostExec;
}

export type TickOutcome = 'checked' | 'skipped-lock' | 'skipped-drain' | 'no-release';

export interface TickResult {
  readonly outcome: TickOutcome;
  readonly restarted: readonly string[];
}

const STATE_FILE = 'watchdog.json';

/**
 * One watchdog tick, a fresh process every time. The lock comes first: while a
 * deploy holds it the watchdog does nothing at all. A drain marker means a
 * planned drain: nothing either. Only then are the checks run and fed through
 * the hysteresis; every counter lives in host.state between ticks.
 */
export async function tick(config: Config, options: TickOptions): Promise<TickResult> {
  const { clock, log } = options;
  const store = await openStore(config.host.state);
  let state = await loadState(store, log);
  const save = (next: WatchdogState) => saveState(store, next);

  if (await lockWanted(config.host.state, clock.now())) {
    // a deploy is waiting for the lock: do not take it from under it (and write
    // nothing: a tick that holds the lock may be saving its counters right now)
    return { outcome: 'skipped-lock', restarted: [] };
  }
  let lock;
  try {
    lock = await acquireHostLock(config.host.lock, { what: 'watchdog', retries: 0, clock });
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    // another tick (cron overlapping a --loop): it has the counters in hand
    if (error.holder?.what === 'watchdog') return { outcome: 'skipped-lock', restarted: [] };
    const key = error.holder ? `${error.holder.what}@${error.holder.since}` : 'unknown';
    if (state.skippedFor !== key) {
      log.emit({
        level: 'info',
        event: 'watchdog.skipped-for-deploy',
        message: `host lock held by ${error.holder?.what ?? 'someone'}${error.holder?.message ? ` (${error.holder.message})` : ''}: not checking until it is released`,
      });
    }
    await save({ ...forgetStreaks(state), skippedFor: key });
    return { outcome: 'skipped-lock', restarted: [] };
  }
  try {
    const { skippedFor: _done, ...rest } = state;
    state = rest;
    const marker = await readDrainMarker(config.host.state);
    if (marker.present) {
      const m = marker.value;
      if (m && isExpired(m, clock.now()) && state.expiredMarker !== m.since) {
        log.emit({
          level: 'error',
          event: 'watchdog.expired-drain',
          message: `drain marker by ${m.by} expired at ${m.until} and nobody holds the lock: a deploy died and left this host drained; check it ('deploy verify --local') and undrain it ('deploy undrain')`,
        });
      }
      // remembered only once reported: a marker first seen unexpired must still be reported when it expires
      const reported = m && isExpired(m, clock.now()) ? { expiredMarker: m.since } : {};
      await save({ ...forgetStreaks(state), ...reported });
      return { outcome: 'skipped-drain', restarted: [] };
    }
    const release = await readCurrentRelease(config.host.root);
    if (!release) {
      // said once, when it starts being true: cron runs this every minute
      if (!state.noRelease)
        log.emit({
          level: 'info',
          event: 'watchdog.no-release',
          message: `no release is live (${config.host.root}/current is missing): nothing to check until the first rollout`,
        });
      await save({ ...forgetStreaks(state), noRelease: true, expiredMarker: undefined });
      return { outcome: 'no-release', restarted: [] };
    }
    const { noRelease: _was, ...live } = state;
    state = live;
    const runtime = createRuntime(runtimeSettings(config), release, options.exec);
    const results = await Promise.all(
      config.services.map(async (s) => {
        const r = await runCheck(s.check, {
          clock,
          state: config.host.state,
          service: s.name,
          runtime,
          release,
          signal: lock.signal,
        });
        return { service: s.name, ok: r.ok, code: r.code, thresholds: s.check };
      }),
    );
    const decision = decide(state, results, schmittTrigger, config.watchdog, clock.now());
    for (const e of decision.events)
      log.emit({
        level: e.level,
        event: e.event,
        message: e.message,
        fields: { service: e.service },
      });
    // counters first: a restart that hangs or kills us must not be repeated from stale counts
    await save({ ...decision.state, expiredMarker: undefined });
    for (const service of decision.restart)
      await restart(config, runtime, service, clock, log, lock.signal, release);
    return { outcome: 'checked', restarted: decision.restart };
  } finally {
    await lock.release();
  }
}

async function restart(
  config: Config,
  runtime: ReturnType<typeof createRuntime>,
  service: string,
  clock: Clock,
  log: Log,
  signal: AbortSignal,
  release: string,
): Promise<void> {
  const start = clock.now();
  let result: 'ok' | 'failed' = 'ok';
  try {
    await runtime.restart(service, { signal });
  } catch (error) {
    result = 'failed';
    log.emit({
      level: 'error',
      event: 'watchdog.restart-failed',
      message: `${service}: restart failed: ${messageOf(error)}`,
      fields: { service },
    });
  }
  await appendAudit(config.host.root, {
    release,
    step: `watchdog.restart ${service}`,
    start: new Date(start).toISOString(),
    duration_ms: clock.now() - start,
    result,
    who: `watchdog@${hostname()}`,
  });
}

async function openStore(dir: string): Promise<StateStore> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new OperationError(
      `host.state ${dir} cannot be created (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); is the file system read-only?`,
    );
  }
  return new StateStore(dir);
}

async function loadState(store: StateStore, log: Log): Promise<WatchdogState> {
  const read = await store.read(STATE_FILE, watchdogStateSchema);
  if (read.problem)
    log.emit({
      level: 'warn',
      event: 'watchdog.state',
      message: `${read.problem}; starting with fresh counters`,
    });
  if (!read.value) {
    if (!read.problem)
      log.emit({
        level: 'info',
        event: 'watchdog.started',
        message: 'watchdog started: no counters yet',
      });
    return freshState();
  }
  return read.value;
}

async function saveState(store: StateStore, state: WatchdogState): Promise<void> {
  try {
    await store.write(STATE_FILE, state);
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause ?? error;
    const code = (cause as NodeJS.ErrnoException).code ?? 'write failed';
    throw new OperationError(
      `cannot write ${store.path(STATE_FILE)} (${code}); is host.state on a read-only file system?`,
    );
  }
}
