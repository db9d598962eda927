import * as z from 'zod';
import type { Duration } from './duration.js';
import { formatDuration } from './duration.js';
import { count, duration, durationOrZero, hostName, port, text, userName } from './fields.js';
import type { KeyPath, RuleProblem } from './where.js';

/**
 * What every balancer kind's config (`src/balancer/<kind>/config/`) is built
 * from, below both config/ and the kinds: config/ lists the kinds' configs
 * (balancer-kinds.ts), and a kind's config imports nothing of config/ but this
 * kit, so neither folder imports the other both ways round.
 */

/** Health-check settings of the balancer, as the timing model takes them. */
export interface HealthCheckSettings {
  readonly interval: Duration;
  readonly timeout: Duration;
  readonly unhealthyThreshold: number;
  readonly healthyThreshold: number;
  readonly deregistrationDelay?: Duration;
  /**
   * where this balancer's deregistration delay is set, for a fix line when
   * it is unknown (like a directive in the balancer's main config)
   */
  readonly deregistrationDelaySetting?: string;
  readonly slowStart?: Duration;
  readonly idleTimeout?: Duration;
}

/** What every kind's entry holds beside its own settings. */
export interface BalancerBase {
  /**
   * Health-check settings written in deploy.yml. Required for a kind with no
   * API (`blind`); for the live kinds they are the desired settings (`deploy
   * infra apply`) and the fallback of `deploy check` without `--live`.
   */
  readonly healthCheck?: HealthCheckSettings;
}

/** a balancer's own host, reached over SSH with the fleet's ssh settings (port and user may differ) */
export interface BalancerSsh {
  readonly address: string;
  readonly port?: number;
  readonly user?: string;
}

export const healthCheckKeys = ['interval', 'timeout', 'unhealthy_threshold', 'healthy_threshold'];

/** the four core health-check settings, required (a kind with no API to read them from) */
export function healthCheckFields() {
  return {
    interval: duration('time between two health checks of a target'),
    timeout: duration('how long one health check may take before it counts as failed'),
    unhealthy_threshold: count('consecutive failed checks before a target is out of rotation'),
    healthy_threshold: count('consecutive passed checks before a target is back in rotation'),
  };
}

/** the same, optional: a live kind's desired settings, given together or not at all */
export function optionalHealthCheckFields() {
  const { interval, timeout, unhealthy_threshold, healthy_threshold } = healthCheckFields();
  return {
    interval: interval.optional(),
    timeout: timeout.optional(),
    unhealthy_threshold: unhealthy_threshold.optional(),
    healthy_threshold: healthy_threshold.optional(),
  };
}

/**
 * The settings beside the health check, and what every entry of `balancers:`
 * may carry besides its kind's settings: a name for output, and the targets it
 * knows the hosts by when they are not `hosts[].target` (another port in a
 * second target group, another server name in a second backend).
 */
export function commonFields() {
  return {
    deregistration_delay: durationOrZero(
      'how long the balancer lets in-flight requests finish on a deregistered target',
    ).optional(),
    slow_start: durationOrZero('ramp-up time of a target that came back in rotation').optional(),
    idle_timeout: duration(
      "the balancer's keep-alive idle timeout towards targets (must be shorter than the services' keep_alive_timeout)",
    ).optional(),
    name: hostName(
      'a name for output and messages (default: the kind and its target group or socket)',
    ).optional(),
    targets: z
      .record(
        hostName('a host name from hosts'),
        text("this balancer's name for the host: an instance id, IP or IP:port, a server name"),
      )
      .optional()
      .meta({
        description:
          "host name → this balancer's target for it, ports included (default: hosts[].target)",
      }),
  };
}

/**
 * The balancer's own host, reached over SSH with the fleet's known_hosts, keys,
 * agent and ProxyJump: a name or address, or the address with its own port and user.
 */
export function balancerSshField() {
  return z
    .union([
      text('the balancer host: a name or address, reached with ssh.port and ssh.user'),
      z.strictObject({
        address: text('the balancer host: a name or address'),
        port: port('its SSH port (default: ssh.port)').optional(),
        user: userName('the SSH user there (default: ssh.user)').optional(),
      }),
    ])
    .optional()
    .meta({
      description:
        "the balancer's own host over SSH: its socket or files are there, and its config is read there (absent: this machine)",
    });
}

/** `ssh:` as written → as the entry holds it */
export function balancerSsh(raw: string | BalancerSsh): BalancerSsh {
  return typeof raw === 'string' ? { address: raw } : raw;
}

/** `ssh:` as read from the raw document by a default name: `host:` before what follows, or nothing */
export function sshPrefix(ssh: unknown): string {
  if (typeof ssh === 'string') return `${ssh}:`;
  const address = (ssh as { address?: unknown } | undefined)?.address;
  return typeof address === 'string' ? `${address}:` : '';
}

/** The flat health-check keys of an entry, as written (durations read into ms). */
export interface RawHealthCheck {
  readonly interval: Duration;
  readonly timeout: Duration;
  readonly unhealthy_threshold: number;
  readonly healthy_threshold: number;
  readonly deregistration_delay?: Duration | undefined;
  readonly slow_start?: Duration | undefined;
  readonly idle_timeout?: Duration | undefined;
}

/**
 * The flat keys → `healthCheck`, present only when all four core settings
 * are: a partial set is reported by the rules, and half a timing model is
 * worse than none.
 */
export function optionalHealthCheck(raw: Partial<RawHealthCheck>): {
  healthCheck?: HealthCheckSettings;
} {
  const { interval, timeout, unhealthy_threshold, healthy_threshold } = raw;
  if (
    interval === undefined ||
    timeout === undefined ||
    unhealthy_threshold === undefined ||
    healthy_threshold === undefined
  )
    return {};
  return {
    healthCheck: healthCheckSettings({
      ...raw,
      interval,
      timeout,
      unhealthy_threshold,
      healthy_threshold,
    }),
  };
}

export function healthCheckSettings(raw: RawHealthCheck): HealthCheckSettings {
  return {
    interval: raw.interval,
    timeout: raw.timeout,
    unhealthyThreshold: raw.unhealthy_threshold,
    healthyThreshold: raw.healthy_threshold,
    ...(raw.deregistration_delay !== undefined && {
      deregistrationDelay: raw.deregistration_delay,
    }),
    ...(raw.slow_start !== undefined && { slowStart: raw.slow_start }),
    ...(raw.idle_timeout !== undefined && { idleTimeout: raw.idle_timeout }),
  };
}

/** `healthCheck` → the flat keys, as deploy.yml writes them */
export function healthCheckDocument(h: HealthCheckSettings) {
  return {
    interval: formatDuration(h.interval),
    timeout: formatDuration(h.timeout),
    unhealthy_threshold: h.unhealthyThreshold,
    healthy_threshold: h.healthyThreshold,
    ...(h.deregistrationDelay !== undefined && {
      deregistration_delay: formatDuration(h.deregistrationDelay),
    }),
    ...(h.slowStart !== undefined && { slow_start: formatDuration(h.slowStart) }),
    ...(h.idleTimeout !== undefined && { idle_timeout: formatDuration(h.idleTimeout) }),
  };
}

/** the same for a live kind's optional settings: none written, none given */
export function optionalHealthCheckDocument(h: HealthCheckSettings | undefined) {
  return h === undefined ? {} : healthCheckDocument(h);
}

type Doc = Readonly<Record<string, unknown>>;

/** One entry of `balancer:` / `balancers:` as the rules read it: where it is written, and what. */
export interface RawEntry {
  readonly path: KeyPath;
  readonly b: Doc;
}

/**
 * A balancer kind's config, given by `src/balancer/<kind>/config/` and listed
 * in config/balancer-kinds.ts: its deploy.yml shape, normalisation and
 * serialisation, its rules, and what it can do as the other rules ask it.
 */
export interface KindConfig<S extends z.ZodObject, E extends { readonly kind: string }> {
  /** one entry as deploy.yml writes it: a strictObject whose `kind` is the kind's literal */
  readonly schema: S;
  /** the entry as Config holds it; `local` resolves a path on this machine against deploy.yml's directory */
  normalize(raw: z.output<S>, local: (p: string) => string): E;
  /** Config's entry → deploy.yml's, every default written out (the host config) */
  serialize(entry: E): z.input<S>;
  /** the name of an entry without one: the kind and how it is reached; read from the raw document */
  defaultName(b: Doc): string | undefined;
  /** what the schema cannot see of one entry: checked against the whole document */
  readonly rules?: readonly ((doc: Doc, entry: RawEntry) => RuleProblem[])[];
  /**
   * no API: its health-check settings are required, it cannot say a host is
   * out (so it is listed alone, and drain.method deregister is refused)
   */
  readonly blind?: boolean;
  /** why drain.method health cannot work with it (no active health checks) */
  readonly noHealthDrain?: string;
  /** why a drain answered with 404 (drain.answer) would not take a host out cleanly */
  readonly no404Drain?: string;
  /** where a drain answered with 404 is a soft stop (persistent connections still served), as messages say it */
  readonly soft404?: string;
  /** it counts requests per host: the canary's source `balancer`, its default */
  readonly countsPerHost?: boolean;
  /** the `balancer:` block `deploy init` writes with this kind, comments included (two-space indent) */
  readonly starter?: string;
}
