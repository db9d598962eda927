import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../clock.js';
import type { BackgroundCheck } from './check-runner.js';

/** What createHealth takes and gives: the library's public surface. */

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface HealthOptions {
  readonly checks?: readonly BackgroundCheck[];
  /** consecutive failed rounds before a check counts as failing; default 3 */
  readonly failureThreshold?: number;
  /** consecutive passed rounds before it counts as passing again; default 2 */
  readonly successThreshold?: number;
  /** ready answers 503 `overloaded` while the event loop's worst lag in the window exceeds this */
  readonly maxLagMs?: number;
  /** default 10 000 ms */
  readonly lagWindowMs?: number;
  /** job loops that must call `heartbeat(name)` within so many ms, or live answers 503 */
  readonly watchdogs?: Readonly<Record<string, number>>;
  /** host.state, holding the drain marker `draining`; default the HANDOFF_STATE environment variable */
  readonly stateDir?: string;
  /**
   * ready's status while draining: 503, or 404 for a balancer that reads it
   * as a soft stop; default the HANDOFF_DRAIN_ANSWER
   * environment variable (deploy.yml's `drain.answer`), else 503
   */
  readonly drainAnswer?: 503 | 404;
  /** how stale the drain marker's answer may be; default 250 ms */
  readonly drainCacheMs?: number;
  /** named in `x-release` on every answer; default the RELEASE environment variable */
  readonly release?: string;
  /**
   * started (startup 200, ready past `starting`) at the first round in which
   * every critical check passed, or at once without checks, instead of at
   * `markStarted()`. Default false: a service is not started until it calls
   * `markStarted()`
   */
  readonly autoStart?: boolean;
  /**
   * for a public listener: every answer says its status and nothing else — no
   * `x-release`, no check names, codes or latencies, no stale loop names — and
   * `x-handoff-verify: 1` gets the real readiness of a drained host only with
   * the token handoff keeps in `<stateDir>/verify-token`. handoff's own checks
   * send it, so verify, `expect_release` and the watchdog work as before
   */
  readonly statusOnly?: boolean;
  /** @deprecated waiting for `markStarted()` is the default now; `false` means `autoStart: true` */
  readonly manualStart?: boolean;
  readonly clock?: Clock;
}

export interface StartOptions {
  /** between background rounds of checks; default 1000 ms */
  readonly intervalMs?: number;
  /** between event-loop lag samples; default 100 ms */
  readonly lagIntervalMs?: number;
}

export interface Health {
  /** 503 `starting` until `markStarted()` (or with `autoStart`, the first passing round), then 200 */
  readonly startup: Handler;
  /** 503 naming the stale job loops, else 200; never because of a dependency */
  readonly live: Handler;
  /** starting → draining → failing → overloaded (503) → degraded → ok (200) */
  readonly ready: Handler;
  /** routes /startup, /live, /ready and /health (= ready) */
  readonly handler: Handler;
  /** true for the paths `handler` answers */
  handles(req: IncomingMessage): boolean;
  /** background rounds of checks and lag samples; probes only read their results */
  start(options?: StartOptions): void;
  /**
   * the service has warmed up: startup answers 200 and ready may pass from now
   * on. Until it is called ready answers 503 `starting`, unless `autoStart`
   */
  markStarted(): void;
  heartbeat(name: string): void;
  setDraining(draining: boolean): void;
  isDraining(): Promise<boolean>;
  /** one round of checks now, instead of waiting for the next */
  round(): Promise<void>;
  /** one round now; resolves with checksPass() after it */
  runChecks(): Promise<boolean>;
  /** every critical check counts as passing */
  checksPass(): boolean;
  /** stop the timers; handlers keep answering */
  close(): void;
}
