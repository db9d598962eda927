import type { Config, RuntimeConfig, ServiceConfig } from '../../config/types.js';
import { detectionBound } from '../../timing/bounds.js';

export type ServiceState = 'running' | 'unhealthy' | 'stopped' | 'unknown';

export interface ServiceStatus {
  readonly state: ServiceState;
  /** short and machine-readable: `running`, `exited`, `no-container`, `exit-3`, `timeout` */
  readonly detail: string;
}

export interface RuntimeCallOptions {
  readonly signal?: AbortSignal;
  /** bound for start, restart, status and prepare (stop is bound by drain.stop_timeout) */
  readonly timeoutMs?: number;
  /** prepare: the output of a long step (compose pull) line by line, as it comes */
  readonly onOutput?: (line: string) => void;
}

/**
 * How services are started and stopped on a host. A Runtime is bound to one
 * release (normally the one `current` points at); `prepare` readies another.
 * Without a service, start and stop act on every service (stop in reverse order).
 */
export interface Runtime {
  readonly release: string;
  /** ready a published release before the lock is taken (compose: pull images) */
  prepare(release: string, options?: RuntimeCallOptions): Promise<void>;
  start(service?: string, options?: RuntimeCallOptions): Promise<void>;
  stop(service?: string, options?: RuntimeCallOptions): Promise<void>;
  restart(service: string, options?: RuntimeCallOptions): Promise<void>;
  /** never throws for a service that is down or a status command that fails: that is a state */
  status(service: string, options?: RuntimeCallOptions): Promise<ServiceStatus>;
  /** the commands that print the services' logs as this runtime keeps them (`deploy logs`), run at once */
  logsCommands(options: LogsOptions): Promise<LogsCommand[]>;
}

export interface LogsCommand {
  readonly argv: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface LogsOptions {
  /** keep printing what comes until stopped */
  readonly follow: boolean;
  /** only what was logged since (compose's --since: `10m`, an RFC 3339 time) */
  readonly since?: string;
  /** the last lines to start with */
  readonly tail: number;
}

/** What the runtimes need from the config, and nothing more. */
export interface RuntimeSettings {
  /** deploy.yml `service`: the compose project name */
  readonly project: string;
  readonly root: string;
  readonly state: string;
  readonly stopTimeout: number;
  /**
   * how long the balancer takes at worst to see a 503 (interval × unhealthy_threshold),
   * when deploy.yml holds its settings; exported to services so a
   * SIGTERM no rollout announced keeps serving that long (the health library's default)
   */
  readonly detectTime?: number;
  /** drain.answer: the health library's status while drained, exported as HANDOFF_DRAIN_ANSWER when 404 */
  readonly drainAnswer: 503 | 404;
  readonly runtime: RuntimeConfig;
  readonly services: readonly ServiceConfig[];
  /** `env.secret`'s names: their values, read from a release's `.env`, are masked in what the agent says */
  readonly secretNames: readonly string[];
}

/** the slowest balancer that has its settings in deploy.yml: a drain is seen by all after it */
function detectTime(config: Config): { detectTime?: number } {
  const bounds = config.balancers.flatMap((b) =>
    b.healthCheck ? [detectionBound(b.healthCheck)] : [],
  );
  return bounds.length > 0 ? { detectTime: Math.max(...bounds) } : {};
}

/**
 * What a service's graceful shutdown and its health endpoint need to know of
 * the drain, as the services' environment: the command runtime exports it to
 * its commands, the release's `.env` holds it for compose. A release written
 * with the default 503 carries no HANDOFF_DRAIN_ANSWER, as before.
 */
export function drainEnv(
  settings: Pick<RuntimeSettings, 'stopTimeout' | 'detectTime' | 'drainAnswer'>,
): Record<string, string> {
  const { stopTimeout, detectTime, drainAnswer } = settings;
  return {
    HANDOFF_STOP_TIMEOUT: String(Math.ceil(stopTimeout / 1000)),
    ...(detectTime !== undefined && { HANDOFF_DETECT_TIME: String(Math.ceil(detectTime / 1000)) }),
    ...(drainAnswer === 404 && { HANDOFF_DRAIN_ANSWER: '404' }),
  };
}

export function runtimeSettings(config: Config): RuntimeSettings {
  return {
    project: config.service,
    root: config.host.root,
    state: config.host.state,
    stopTimeout: config.drain.stopTimeout,
    // any kind, when deploy.yml holds the settings (a kind with no API always; the live
    // kinds for `deploy infra apply`): the host cannot ask a live balancer itself
    ...detectTime(config),
    drainAnswer: config.drain.answer,
    runtime: config.runtime,
    services: config.services,
    secretNames: config.env.secret,
  };
}
