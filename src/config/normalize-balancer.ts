import type { RawBalancer } from './balancer-schema.js';
import type { BalancerConfig, BalancerEntry, BalancerSsh, HealthCheckSettings } from './types.js';

/**
 * The balancer block → BalancerConfig. Its flat health-check keys become
 * `healthCheck`, present only when all four core settings are: a partial set
 * is reported by rules.ts, and half a timing model is worse than none.
 */

export function balancerConfig(raw: RawBalancer, local: (p: string) => string): BalancerConfig {
  switch (raw.kind) {
    case 'alb': {
      const healthCheck = optionalHealthCheck(raw);
      return {
        kind: 'alb',
        targetGroupArn: raw.target_group_arn,
        ...(raw.region !== undefined && { region: raw.region }),
        ...(raw.type !== undefined && { type: raw.type }),
        ...(healthCheck && { healthCheck }),
      };
    }
    case 'haproxy': {
      const healthCheck = optionalHealthCheck(raw);
      return {
        kind: 'haproxy',
        socket: raw.socket,
        backend: raw.backend,
        ...(raw.ssh !== undefined && { ssh: sshOf(raw.ssh) }),
        // a path on the balancer's host is not resolved against deploy.yml's directory
        ...(raw.config !== undefined && {
          config: raw.ssh !== undefined ? raw.config : local(raw.config),
        }),
        ...(healthCheck && { healthCheck }),
      };
    }
    case 'nginx': {
      const healthCheck = optionalHealthCheck(raw);
      return {
        kind: 'nginx',
        ...(raw.ssh !== undefined && { ssh: sshOf(raw.ssh) }),
        // paths on the balancer's host are not resolved against deploy.yml's directory
        config: raw.ssh !== undefined ? raw.config : local(raw.config),
        upstream: raw.upstream,
        ...(raw.main_config !== undefined && {
          mainConfig: raw.ssh !== undefined ? raw.main_config : local(raw.main_config),
        }),
        ...(healthCheck && { healthCheck }),
      };
    }
    case 'static':
      return { kind: 'static', healthCheck: healthCheckSettings(raw) };
  }
}

type RawHealthCheck = Omit<Extract<RawBalancer, { kind: 'static' }>, 'kind'>;

function optionalHealthCheck(raw: Partial<RawHealthCheck>): HealthCheckSettings | undefined {
  const { interval, timeout, unhealthy_threshold, healthy_threshold } = raw;
  // rules.ts reports a partial set; here a partial set simply means "none"
  if (
    interval === undefined ||
    timeout === undefined ||
    unhealthy_threshold === undefined ||
    healthy_threshold === undefined
  )
    return undefined;
  return healthCheckSettings({ ...raw, interval, timeout, unhealthy_threshold, healthy_threshold });
}

function healthCheckSettings(raw: RawHealthCheck): HealthCheckSettings {
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

/**
 * `balancers:` (or `balancer:`, its one-element spelling) → one list. A name
 * not given is the kind and what the balancer is reached by, so two HAProxies
 * differ by their sockets and two target groups by their names.
 */
export function balancerEntries(
  raw: { balancer?: RawBalancer | undefined; balancers?: readonly RawBalancer[] | undefined },
  local: (p: string) => string,
): BalancerEntry[] {
  const list = raw.balancers ?? (raw.balancer ? [raw.balancer] : []);
  return list.map((b) => ({
    ...balancerConfig(b, local),
    name: b.name ?? defaultName(b) ?? b.kind,
    targets: { ...b.targets },
  }));
}

/** The kind and how the balancer is reached; read from the raw document by the rules too. */
export function defaultName(b: Readonly<Record<string, unknown>>): string | undefined {
  // arn:…:targetgroup/<name>/<id>: the group's name is what the console shows
  if (b.kind === 'alb' && typeof b.target_group_arn === 'string')
    return `alb:${/:targetgroup\/([^/]+)/.exec(b.target_group_arn)?.[1] ?? b.target_group_arn}`;
  if (b.kind === 'haproxy' && typeof b.socket === 'string')
    return `haproxy:${sshPrefix(b.ssh)}${b.socket}`;
  if (b.kind === 'nginx' && typeof b.upstream === 'string')
    return `nginx:${sshPrefix(b.ssh)}${b.upstream}`;
  return b.kind === 'static' ? 'static' : undefined;
}

function sshOf(ssh: string | BalancerSsh): BalancerSsh {
  return typeof ssh === 'string' ? { address: ssh } : ssh;
}

function sshPrefix(ssh: unknown): string {
  if (typeof ssh === 'string') return `${ssh}:`;
  const address = (ssh as { address?: unknown } | undefined)?.address;
  return typeof address === 'string' ? `${address}:` : '';
}
