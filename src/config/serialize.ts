import { kindConfig } from './balancer-kinds.js';
import { defaultName } from './normalize-balancer.js';
import { formatDuration } from './kit/duration.js';
import { sealHostConfig } from './sealed.js';
import type { RawConfigInput } from './schema.js';
import type { BalancerConfig, BalancerEntry, CheckConfig, Config, ServiceConfig } from './types.js';

/**
 * Config → the document it came from, with every default written out and
 * every path absolute. `deploy setup` publishes it as /etc/handoff/<service>.json
 * so the watchdog on a host runs with exactly the operator's settings (setup
 * leaves the operator's HANDOFF_* overrides out), read back by loadConfigFromJson;
 * sealed (sealed.ts) so a watchdog tick can skip the YAML parser and zod.
 */
export function toHostJson(config: Config): string {
  return sealHostConfig(toDocument(config), config);
}

export function toDocument(config: Config): RawConfigInput {
  const { ssh, drain, rollout, watchdog, host, runtime } = config;
  const d = formatDuration;
  return {
    service: config.service,
    ssh: sshDocument(ssh),
    hosts: config.hosts.map((h) => ({
      name: h.name,
      address: h.address,
      target: h.target,
      ...(h.sshPort !== undefined && { ssh_port: h.sshPort }),
    })),
    balancers: config.balancers.map(balancer),
    drain: {
      method: drain.method,
      answer: drain.answer,
      overlap: d(drain.overlap),
      max_request: d(drain.maxRequest),
      stop_timeout: d(drain.stopTimeout),
    },
    rollout: rolloutDocument(rollout),
    host: { root: host.root, lock: host.lock, state: host.state, agent: host.agent },
    runtime:
      runtime.kind === 'compose'
        ? {
            kind: 'compose',
            compose_file: runtime.composeFile,
            ...(runtime.composeCommand ? { compose_command: [...runtime.composeCommand] } : {}),
          }
        : { kind: 'command' },
    // secrets by name only: their values travel with each rollout, never in the host config
    env: { clear: { ...config.env.clear }, secret: [...config.env.secret] },
    services: config.services.map(service),
    watchdog: watchdogDocument(watchdog),
    hooks: { timeout: d(config.hooks.timeout) },
    lease: lease(config.lease),
  };
}

function sshDocument(ssh: Config['ssh']): RawConfigInput['ssh'] {
  const d = formatDuration;
  return {
    user: ssh.user,
    port: ssh.port,
    ...(ssh.identityFile !== undefined && { identity_file: ssh.identityFile }),
    known_hosts: ssh.knownHosts,
    ...(ssh.proxyJump !== undefined && { proxy_jump: ssh.proxyJump }),
    connect_timeout: d(ssh.connectTimeout),
    max_connections: ssh.maxConnections,
    sudo: ssh.sudo,
  };
}

function rolloutDocument(rollout: Config['rollout']): RawConfigInput['rollout'] {
  const d = formatDuration;
  return {
    batch: rollout.batch.kind === 'count' ? rollout.batch.count : `${rollout.batch.percent}%`,
    min_healthy: rollout.minHealthy,
    verify_successes: rollout.verifySuccesses,
    verify_timeout: d(rollout.verifyTimeout),
    rollback: rollout.rollback,
    max_time_back: d(rollout.maxTimeBack),
    on_failure: rollout.onFailure,
    ...(rollout.allowDowntime ? { allow_downtime: true } : {}),
    ...(rollout.artifact !== undefined && { artifact: rollout.artifact }),
    keep_releases: rollout.keepReleases,
    upload_concurrency: rollout.uploadConcurrency,
  };
}

function watchdogDocument(watchdog: Config['watchdog']): RawConfigInput['watchdog'] {
  const d = formatDuration;
  return {
    every: d(watchdog.every),
    failures_before_restart: watchdog.failuresBeforeRestart,
    successes_before_healthy: watchdog.successesBeforeHealthy,
    start_period: d(watchdog.startPeriod),
    max_restarts: watchdog.maxRestarts,
    restart_window: d(watchdog.restartWindow),
  };
}

function lease(l: Config['lease']): NonNullable<RawConfigInput['lease']> {
  return {
    store: l.store,
    ...(l.endpoints.length > 0 && { endpoints: [...l.endpoints] }),
    prefix: l.prefix,
    ...(l.tls && { tls: { ...l.tls } }),
    ...(l.username !== undefined && { username: l.username }),
    password_env: l.passwordEnv,
  };
}

type RawEntry = NonNullable<RawConfigInput['balancers']>[number];

function balancer(entry: BalancerEntry): RawEntry {
  const { name, targets, ...b } = entry;
  const given = Object.keys(targets).length > 0 ? { targets: { ...targets } } : {};
  const raw = kindSettings(b);
  // a name made from the kind and how it is reached (kind:/run/…) is made again on load; written
  // out, the name rule would refuse it in the host config
  const named = name === defaultName(raw) ? {} : { name };
  return { ...raw, ...named, ...given };
}

function kindSettings(b: BalancerConfig): RawEntry {
  // Config holds only entries of the registry's kinds
  return kindConfig(b.kind)!.serialize(b) as RawEntry;
}

function service(s: ServiceConfig): RawConfigInput['services'][number] {
  return {
    name: s.name,
    check: check(s.check),
    ...(s.keepAliveTimeout !== undefined && {
      keep_alive_timeout: formatDuration(s.keepAliveTimeout),
    }),
    ...(s.start !== undefined && { start: s.start }),
    ...(s.stop !== undefined && { stop: s.stop }),
    ...(s.status !== undefined && { status: s.status }),
    ...(s.logs !== undefined && { logs: s.logs }),
    ...(!s.stopProof && { stop_proof: false }),
  };
}

type RawCheckInput = RawConfigInput['services'][number]['check'];

function check(c: CheckConfig): RawCheckInput {
  return {
    ...checkKind(c),
    ...(c.failuresBeforeRestart !== undefined && {
      failures_before_restart: c.failuresBeforeRestart,
    }),
    ...(c.successesBeforeHealthy !== undefined && {
      successes_before_healthy: c.successesBeforeHealthy,
    }),
  };
}

function checkKind(c: CheckConfig): RawCheckInput {
  switch (c.kind) {
    case 'http':
      return {
        http: {
          url: c.url,
          expect_status: c.expectStatus,
          ...(c.expectRelease && { expect_release: true }),
        },
        timeout: formatDuration(c.timeout),
      };
    case 'tcp': {
      const host = c.host.includes(':') ? `[${c.host}]` : c.host;
      return { tcp: `${host}:${c.port}`, timeout: formatDuration(c.timeout) };
    }
    case 'heartbeat':
      return {
        heartbeat: {
          dir: c.dir,
          max_age: formatDuration(c.maxAge),
          ...(c.expected !== undefined && { expected: c.expected }),
        },
      };
    case 'runtime':
      return { runtime: true, timeout: formatDuration(c.timeout) };
  }
}
