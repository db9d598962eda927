import type { Clock } from '../clock.js';
import type { Config } from '../config/types.js';
import { LockHeldError } from '../errors.js';
import { runChecks } from '../host/checks/run.js';
import { isExpired, readDrainMarker, type DrainMarker } from '../host/drain-marker.js';
import type { HostExec } from '../host/exec.js';
import { readCurrentRelease } from '../host/layout.js';
import { acquireHostLock } from '../host/lock.js';
import { lockWanted } from '../host/lock-intent.js';
import { createRuntime } from '../host/runtime/create.js';
import { runtimeSettings } from '../host/runtime/runtime.js';
import { schmittTrigger } from '../hysteresis/index.js';
import type { Log } from '../log.js';
import { decide } from './decide.js';
import { restartOne } from './restart.js';
import { auditedRestarts, withRestarts } from './restart-record.js';
import { forgetStreaks, type WatchdogState } from './state.js';
import { loadState, openStore, saveOrThrow, saveState, type CounterStore } from './state-file.js';

export interface TickOptions {
  readonly clock: Clock;
  readonly log: Log;
  readonly exec?: HostExec;
  /** where the counters live; default host.state */
  readonly store?: CounterStore;
}

export type TickOutcome = 'checked' | 'skipped-lock' | 'skipped-drain' | 'no-release' | 'healed';

export interface TickResult {
  readonly outcome: TickOutcome;
  readonly restarted: readonly string[];
}

type HostLock = Awaited<ReturnType<typeof acquireHostLock>>;

/** What a tick hands its parts: the config, the counters so far and how to save them. */
interface TickContext {
  readonly config: Config;
  readonly options: TickOptions;
  readonly store: CounterStore;
  readonly state: WatchdogState;
  readonly save: (next: WatchdogState) => Promise<void>;
}

const skipped = (outcome: TickOutcome): TickResult => ({ outcome, restarted: [] });

/**
 * One watchdog tick, a fresh process every time. The lock comes first: while a
 * deploy holds it the watchdog does nothing at all. A drain marker means a
 * planned drain: nothing either. Only then are the checks run and fed through
 * the hysteresis; every counter lives in host.state between ticks.
 */
export async function tick(config: Config, options: TickOptions): Promise<TickResult> {
  const { clock } = options;
  const store = options.store ?? (await openStore(config.host.state));
  const state = await loadState(store, options.log);
  const save = (next: WatchdogState) => saveOrThrow(store, next);

  if (await lockWanted(config.host.state, clock.now())) {
    // a deploy is waiting for the lock: do not take it from under it (and write
    // nothing: a tick that holds the lock may be saving its counters right now)
    return skipped('skipped-lock');
  }
  const lock = await takeLock({ config, options, store, state, save });
  if (!('signal' in lock)) return lock;
  try {
    const { skippedFor: _done, ...rest } = state;
    return await underLock({ config, options, store, state: rest, save }, lock);
  } finally {
    await lock.release();
  }
}

/** The host lock, or why this tick does nothing (a deploy or another tick has it). */
async function takeLock(ctx: TickContext): Promise<HostLock | TickResult> {
  const { config, options, state, save } = ctx;
  try {
    return await acquireHostLock(config.host.lock, {
      what: 'watchdog',
      retries: 0,
      clock: options.clock,
    });
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    // another tick (cron overlapping a --loop): it has the counters in hand
    if (error.holder?.what === 'watchdog') return skipped('skipped-lock');
    const key = error.holder ? `${error.holder.what}@${error.holder.since}` : 'unknown';
    if (state.skippedFor !== key) {
      options.log.emit({
        level: 'info',
        event: 'watchdog.skipped-for-deploy',
        message: `host lock held by ${error.holder?.what ?? 'someone'}${error.holder?.message ? ` (${error.holder.message})` : ''}: not checking until it is released`,
      });
    }
    await save({ ...forgetStreaks(state), skippedFor: key });
    return skipped('skipped-lock');
  }
}

async function underLock(ctx: TickContext, lock: HostLock): Promise<TickResult> {
  const { config, options, state, save } = ctx;
  const marker = await readDrainMarker(config.host.state);
  if (marker.present) return onDrainMarker(ctx, lock, marker.value);
  const release = await readCurrentRelease(config.host.root);
  if (!release) {
    // said once, when it starts being true: cron runs this every minute
    if (!state.noRelease)
      options.log.emit({
        level: 'info',
        event: 'watchdog.no-release',
        message: `no release is live (${config.host.root}/current is missing): nothing to check until the first rollout`,
      });
    await save({ ...forgetStreaks(state), noRelease: true, expiredMarker: undefined });
    return skipped('no-release');
  }
  const { noRelease: _was, ...live } = state;
  return checkAndRestart({ ...ctx, state: live }, lock, release);
}

/** A planned drain: nothing, unless a rollout's lease on it is over (the rollout died). */
async function onDrainMarker(
  ctx: TickContext,
  lock: HostLock,
  m: DrainMarker | undefined,
): Promise<TickResult> {
  const { config, options, state, save } = ctx;
  const now = options.clock.now();
  // a rollout's marker (it names its release) whose lease is over: the rollout died
  if (m?.release !== undefined && isExpired(m, now)) {
    const { heal } = await import('./heal.js');
    const healed = await heal({ ...options, config, signal: lock.signal, marker: m, state });
    await save(healed.outcome === 'undrained' ? healed.state : forgetStreaks(healed.state));
    return skipped(healed.outcome === 'undrained' ? 'healed' : 'skipped-drain');
  }
  if (m && isExpired(m, now) && state.expiredMarker !== m.since) {
    options.log.emit({
      level: 'error',
      event: 'watchdog.expired-drain',
      message: `drain marker by ${m.by} expired at ${m.until} and nobody holds the lock: a deploy died and left this host drained; check it ('deploy verify --local') and undrain it ('deploy undrain')`,
    });
  }
  // remembered only once reported: a marker first seen unexpired must still be reported when it expires
  const reported = m && isExpired(m, now) ? { expiredMarker: m.since } : {};
  await save({ ...forgetStreaks(state), ...reported });
  return skipped('skipped-drain');
}

/** The checks through the hysteresis, the counters saved, then the restarts they call for. */
async function checkAndRestart(
  ctx: TickContext,
  lock: HostLock,
  release: string,
): Promise<TickResult> {
  const { config, options, state } = ctx;
  const { clock, log } = options;
  const runtime = createRuntime(runtimeSettings(config), release, options.exec);
  const checked = await runChecks(config.services, {
    clock,
    state: config.host.state,
    runtime,
    release,
    signal: lock.signal,
  });
  const results = checked.map(({ service: s, result: r }) => ({
    service: s.name,
    ok: r.ok,
    code: r.code,
    thresholds: s.check,
  }));
  const now = clock.now();
  let decision = decide(state, results, schmittTrigger, config.watchdog, now);
  if (decision.restart.length > 0) {
    // counters lost to a full host.state are in audit.jsonl: a restart they forgot
    // still counts (start_period, max_restarts), or every tick would restart again
    const since = now - config.watchdog.restartWindow;
    const known = withRestarts(
      state,
      await auditedRestarts(config.host.root, decision.restart, since, now),
    );
    if (known !== state) decision = decide(known, results, schmittTrigger, config.watchdog, now);
  }
  for (const e of decision.events)
    log.emit({
      level: e.level,
      event: e.event,
      message: e.message,
      fields: { service: e.service },
    });
  // counters first: a restart that hangs or kills us must not be repeated from stale counts
  const failed = await saveState(ctx.store, { ...decision.state, expiredMarker: undefined });
  const unsaved = failed !== undefined && !failed.inPlace;
  const restart = { config, runtime, clock, log, signal: lock.signal, release, at: now };
  const restarted: string[] = [];
  for (const service of decision.restart)
    if (await restartOne({ ...restart, service, unsaved })) restarted.push(service);
  // the tick says what it could not save only now: a full disk must not stop a restart
  if (failed) throw failed.error;
  return { outcome: 'checked', restarted };
}
