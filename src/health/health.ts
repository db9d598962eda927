import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import { answerWith, type AnswerFlags } from './answer.js';
import { createCheckSet, type CheckSet } from './check-set.js';
import { watchDrainMarker, type DrainWatch } from './drain-marker.js';
import type { Handler, Health, HealthOptions } from './health-api.js';
import { LagWindow, sampleLag } from './lag.js';
import { trustWith } from './trust.js';
import { drainCodeFrom, readyStatus, type DrainCode } from './verdict.js';
import { Watchdogs } from './watchdogs.js';

const ROUTES = new Set(['/startup', '/live', '/ready', '/health']);
const pathOf = (req: IncomingMessage): string => (req.url ?? '/').split('?', 1)[0] ?? '/';

/** What every route reads: the checks, the drain state, who asked, and the answer's form. */
interface Core {
  readonly clock: Clock;
  readonly checks: CheckSet;
  readonly statusOnly: boolean;
  readonly trusted: ReturnType<typeof trustWith>;
  readonly answer: ReturnType<typeof answerWith>;
  readonly lag: LagWindow;
  readonly watchdogs: Watchdogs;
  readonly isDraining: () => Promise<boolean>;
  readonly drainCode: DrainCode;
  readonly started: () => boolean;
  readonly overloaded: () => boolean;
}

export function createHealth(options: HealthOptions = {}): Health {
  const clock = options.clock ?? systemClock;
  const checks = createCheckSet(
    options.checks ?? [],
    { failures: options.failureThreshold ?? 3, successes: options.successThreshold ?? 2 },
    clock,
  );
  const stateDir = options.stateDir ?? process.env.HANDOFF_STATE;
  const marker: DrainWatch | undefined = stateDir
    ? watchDrainMarker(path.join(stateDir, 'draining'), { maxAgeMs: options.drainCacheMs ?? 250 })
    : undefined;
  const statusOnly = options.statusOnly === true;
  const lag = new LagWindow(options.lagWindowMs ?? 10_000);
  let drainingFlag = false;
  let markedStarted = false;
  // with no checks there is nothing to wait for; this counts only with autoStart
  let passedOnce = (options.checks ?? []).length === 0;
  // a service that warms up calls markStarted() when it has: ready before it would take
  // traffic cold, the naive server's mistake; "first passing round" is asked for by name
  const autoStart = options.autoStart ?? options.manualStart === false;
  const core: Core = {
    clock,
    checks,
    statusOnly,
    trusted: trustWith(statusOnly, stateDir, () => clock.now()),
    answer: answerWith(options.release ?? process.env.RELEASE),
    lag,
    watchdogs: new Watchdogs(options.watchdogs ?? {}, clock.now()),
    isDraining: async () => drainingFlag || ((await marker?.isDraining()) ?? false),
    drainCode: options.drainAnswer ?? drainCodeFrom(process.env),
    started: () => markedStarted || (autoStart && passedOnce),
    overloaded: () => options.maxLagMs !== undefined && lag.max(clock.now()) > options.maxLagMs,
  };
  const round = async (): Promise<void> => {
    await checks.round();
    if (checks.critical() === 'healthy') passedOnce = true;
  };
  const loop = checkLoop(round, options.maxLagMs === undefined ? undefined : lag, clock);
  const { startup, live, ready, handler } = routeHandlers(core);

  return {
    startup,
    live,
    ready,
    handler,
    handles: (req) => ROUTES.has(pathOf(req)),
    start: loop.start,
    markStarted: () => void (markedStarted = true),
    heartbeat: (name) => core.watchdogs.heartbeat(name, clock.now()),
    setDraining: (draining) => void (drainingFlag = draining),
    isDraining: core.isDraining,
    round,
    runChecks: async () => {
      await round();
      return checks.critical() === 'healthy';
    },
    checksPass: () => checks.critical() === 'healthy',
    close: loop.close,
  };
}

/** How a route answers: detail only to who may see it, trust asked only when it matters. */
function answering(core: Core) {
  const { answer, statusOnly } = core;
  /** a public listener's answer is its status alone: no release, check names, codes, loops */
  const respond = (
    res: ServerResponse,
    code: number,
    body: { readonly status: string; readonly [detail: string]: unknown },
    detail: boolean,
    flags: AnswerFlags = {},
  ): void =>
    statusOnly && !detail
      ? answer(res, code, { status: body.status }, { ...flags, release: false })
      : answer(res, code, body, flags);
  const failed = (res: ServerResponse) =>
    answer(res, 500, { status: 'error' }, { release: !statusOnly });
  /** only requests that ask for it pay for the question (a verify, never a balancer probe) */
  const withTrust = (req: IncomingMessage, then: (trust: boolean) => void, res: ServerResponse) => {
    const trust = core.trusted(req);
    if (typeof trust === 'boolean') then(trust);
    else trust.then(then, () => failed(res));
  };
  return { respond, failed, withTrust };
}

/** /startup, /live and /ready (also /health), each answering from `core`. */
function routeHandlers(core: Core): Pick<Health, 'startup' | 'live' | 'ready' | 'handler'> {
  const { answer, checks, clock, statusOnly } = core;
  const { respond, failed, withTrust } = answering(core);
  const readiness = (res: ServerResponse, draining: boolean, verify: boolean): void => {
    const { status, code } = readyStatus(
      {
        started: core.started(),
        // handoff's own check asks for the truth even while drained, so a broken
        // release fails its verify before the balancer ever sees it
        draining: draining && !verify,
        critical: checks.critical(),
        overloaded: core.overloaded(),
        degraded: checks.degraded(),
      },
      core.drainCode,
    );
    respond(res, code, { status, checks: checks.views() }, verify, {
      draining,
      verified: verify,
    });
  };
  const ready: Handler = (req, res) =>
    withTrust(
      req,
      (verify) =>
        void core.isDraining().then(
          (draining) => readiness(res, draining, verify),
          () => failed(res),
        ),
      res,
    );
  const live: Handler = (req, res) => {
    const stale = core.watchdogs.stale(clock.now());
    const body = { status: stale.length > 0 ? 'stale' : 'alive', stale };
    withTrust(req, (trust) => respond(res, stale.length > 0 ? 503 : 200, body, trust), res);
  };
  const startup: Handler = (req, res) => {
    const [code, status] = core.started() ? [200, 'started'] : [503, 'starting'];
    withTrust(req, (trust) => respond(res, code, { status }, trust), res);
  };
  const routes: Record<string, Handler> = {
    '/startup': startup,
    '/live': live,
    '/ready': ready,
    '/health': ready,
  };
  const handler: Handler = (req, res) => {
    const route = routes[pathOf(req)];
    if (route) route(req, res);
    else answer(res, 404, { status: 'not-found' }, { release: !statusOnly });
  };
  return { startup, live, ready, handler };
}

/** The checks' rounds, and the event loop's lag samples when `maxLagMs` asks for them. */
function checkLoop(
  round: () => Promise<void>,
  lag: LagWindow | undefined,
  clock: Clock,
): Pick<Health, 'start' | 'close'> {
  const stops: (() => void)[] = [];
  return {
    start(start = {}) {
      // a second start() would run every check twice per interval
      if (stops.length > 0) return;
      const intervalMs = start.intervalMs ?? 1000;
      void round();
      const timer = setInterval(() => void round(), intervalMs);
      timer.unref();
      stops.push(() => clearInterval(timer));
      if (lag) stops.push(sampleLag(lag, start.lagIntervalMs ?? 100, clock));
    },
    close: () => {
      for (const stop of stops.splice(0)) stop();
    },
  };
}
