import { canaryConfig } from './normalize-canary.js';
import os from 'node:os';
import path from 'node:path';
import { cleanHostPath, hostDefaults } from './host-paths.js';
import { envConfig } from './secret-sources.js';
import { kindConfig } from './balancer-kinds.js';
import { balancerEntries } from './normalize-balancer.js';
import type { RawConfig } from './schema.js';
import type { RawCheck, RawService } from './service-schema.js';
import type { CheckConfig, CheckThresholds, Config, LeaseConfig, ServiceConfig } from './types.js';

/**
 * Parsed deploy.yml → the Config every command works from: camelCase, the
 * defaults that depend on other keys (target = address, paths named after the
 * service), and local paths made absolute so no later `cwd` changes them.
 */

const defaultCheckTimeout = 2_000;

export interface NormalizeOptions {
  /** the file the config came from; relative local paths are resolved beside it */
  readonly source: string;
  /** for `~`; defaults to the user's home directory */
  readonly home?: string;
}

export function normalize(raw: RawConfig, options: NormalizeOptions): Config {
  const home = options.home ?? os.homedir();
  const dir = path.dirname(path.resolve(options.source));
  const local = (p: string): string => path.resolve(dir, expandHome(p, home));
  const { ssh, drain, watchdog, service } = raw;
  return {
    source: options.source,
    service,
    ssh: sshConfig(ssh, local),
    hosts: raw.hosts.map((h) => ({
      name: h.name,
      address: h.address,
      target: h.target ?? h.address,
      ...(h.ssh_port !== undefined && { sshPort: h.ssh_port }),
    })),
    balancers: balancerEntries(raw, local),
    drain: {
      method: drain.method,
      answer: drain.answer,
      overlap: drain.overlap,
      maxRequest: drain.max_request,
      stopTimeout: drain.stop_timeout,
    },
    rollout: rolloutConfig(raw, local),
    host: hostPaths(raw.host, service),
    runtime:
      raw.runtime.kind === 'compose'
        ? {
            kind: 'compose',
            composeFile: local(raw.runtime.compose_file),
            ...(raw.runtime.compose_command ? { composeCommand: raw.runtime.compose_command } : {}),
          }
        : { kind: 'command' },
    env: envConfig(raw.env),
    services: raw.services.map(serviceConfig),
    watchdog: watchdogConfig(watchdog),
    hooks: { timeout: raw.hooks.timeout },
    lease: leaseConfig(raw.lease, local),
  };
}

function sshConfig(ssh: RawConfig['ssh'], local: (p: string) => string): Config['ssh'] {
  return {
    user: ssh.user,
    port: ssh.port,
    ...(ssh.identity_file !== undefined && { identityFile: local(ssh.identity_file) }),
    knownHosts: local(ssh.known_hosts),
    ...(ssh.proxy_jump !== undefined && { proxyJump: ssh.proxy_jump }),
    connectTimeout: ssh.connect_timeout,
    maxConnections: ssh.max_connections,
    sudo: ssh.sudo,
  };
}

function rolloutConfig(raw: RawConfig, local: (p: string) => string): Config['rollout'] {
  const { rollout } = raw;
  return {
    batch: rollout.batch,
    minHealthy: rollout.min_healthy,
    verifySuccesses: rollout.verify_successes,
    verifyTimeout: rollout.verify_timeout,
    rollback: rollout.rollback,
    maxTimeBack: rollout.max_time_back,
    onFailure: rollout.on_failure,
    superseded: rollout.superseded,
    unreachable: rollout.unreachable,
    maxUnreachable: rollout.max_unreachable,
    allowDowntime: rollout.allow_downtime,
    ...(rollout.artifact !== undefined && { artifact: local(rollout.artifact) }),
    keepReleases: rollout.keep_releases,
    uploadConcurrency: rollout.upload_concurrency,
    ...canaryConfig(rollout, allCountPerHost(raw), local),
  };
}

function watchdogConfig(watchdog: RawConfig['watchdog']): Config['watchdog'] {
  return {
    every: watchdog.every,
    failuresBeforeRestart: watchdog.failures_before_restart,
    successesBeforeHealthy: watchdog.successes_before_healthy,
    startPeriod: watchdog.start_period,
    maxRestarts: watchdog.max_restarts,
    restartWindow: watchdog.restart_window,
  };
}

function leaseConfig(raw: RawConfig['lease'], local: (p: string) => string): LeaseConfig {
  const tls = raw.tls && {
    ...(raw.tls.ca !== undefined && { ca: local(raw.tls.ca) }),
    ...(raw.tls.cert !== undefined && { cert: local(raw.tls.cert) }),
    ...(raw.tls.key !== undefined && { key: local(raw.tls.key) }),
  };
  return {
    store: raw.store,
    endpoints: [...(raw.endpoints ?? [])],
    prefix: raw.prefix,
    ...(tls && { tls }),
    ...(raw.username !== undefined && { username: raw.username }),
    passwordEnv: raw.password_env,
  };
}

/** the host paths, clean (host-paths.ts): `//run/x/` never reaches a command line */
function hostPaths(given: RawConfig['host'], service: string): Config['host'] {
  const defaults = hostDefaults(service);
  const clean = (key: keyof typeof defaults): string => {
    const value = given[key];
    // a path with `..` was refused by the rules before this runs
    return value === undefined ? defaults[key] : (cleanHostPath(value) ?? value);
  };
  return { root: clean('root'), lock: clean('lock'), state: clean('state'), agent: clean('agent') };
}

export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  return p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}

function serviceConfig(raw: RawService): ServiceConfig {
  return {
    name: raw.name,
    check: check(raw.check),
    ...(raw.keep_alive_timeout !== undefined && { keepAliveTimeout: raw.keep_alive_timeout }),
    ...(raw.start !== undefined && { start: raw.start }),
    ...(raw.stop !== undefined && { stop: raw.stop }),
    ...(raw.status !== undefined && { status: raw.status }),
    ...(raw.logs !== undefined && { logs: raw.logs }),
    stopProof: raw.stop_proof ?? true,
  };
}

function check(raw: RawCheck): CheckConfig {
  return { ...kindOf(raw), ...thresholds(raw) };
}

/** only the overrides given: an absent key means "the watchdog's" */
function thresholds(raw: RawCheck): CheckThresholds {
  return {
    ...(raw.failures_before_restart === undefined
      ? {}
      : { failuresBeforeRestart: raw.failures_before_restart }),
    ...(raw.successes_before_healthy === undefined
      ? {}
      : { successesBeforeHealthy: raw.successes_before_healthy }),
  };
}

function kindOf(raw: RawCheck): CheckConfig {
  const timeout = raw.timeout ?? defaultCheckTimeout;
  if (raw.http) {
    const expectRelease = raw.http.expect_release ?? raw.expect_release ?? false;
    return {
      kind: 'http',
      url: raw.http.url,
      expectStatus: raw.http.expect_status,
      expectRelease,
      timeout,
    };
  }
  if (raw.tcp) return { kind: 'tcp', host: raw.tcp.host, port: raw.tcp.port, timeout };
  if (raw.heartbeat) {
    const { dir, max_age, expected } = raw.heartbeat;
    return { kind: 'heartbeat', dir, maxAge: max_age, ...(expected !== undefined && { expected }) };
  }
  return { kind: 'runtime', timeout };
}

/** Whether every balancer counts requests per host (the canary's default source). */
function allCountPerHost(raw: RawConfig): boolean {
  const all = [raw.balancer, ...(raw.balancers ?? [])].flatMap((b) => (b ? [b] : []));
  return all.length > 0 && all.every((b) => kindConfig(b.kind)?.countsPerHost === true);
}
