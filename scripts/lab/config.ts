import { stringify } from 'yaml';
import { composeFiles } from './compose.js';
import { haproxyInstances } from './haproxy.js';
import { labFiles, type LabLayout } from './layout.js';
import { nginxFiles, nginxTarget, NGINX_UPSTREAM } from './nginx.js';
import { serviceEnv } from './services.js';

export interface LabConfigOptions {
  /** drain.overlap in ms; default 2000 */
  readonly overlapMs?: number;
  /** drain.stop_timeout in ms; default 10000 */
  readonly stopTimeoutMs?: number;
  /** rollout.batch; default 1 */
  readonly batch?: number | string;
  readonly minHealthy?: number;
  readonly rollback?: boolean;
  /** rollout.on_failure; default stop */
  readonly onFailure?: 'stop' | 'rollback';
  /** hooks.timeout in ms; default 5 min */
  readonly hooksTimeoutMs?: number;
  /** heartbeat max_age in ms; default 5000 (the worker beats every second) */
  readonly heartbeatMaxAgeMs?: number;
  /** rollout.verify_timeout in ms; default 10000 */
  readonly verifyTimeoutMs?: number;
  /** watchdog.every in ms; default 10000, slow enough that `deploy check` has no warning */
  readonly watchdogEveryMs?: number;
  /** this service's stop exits 0 and stops nothing (a launcher whose $! is already gone) */
  readonly brokenStop?: 'app' | 'worker';
  /** the app's check requires x-release to be the release being deployed */
  readonly expectRelease?: boolean;
  /** the health-check settings deploy.yml asks for (`deploy infra apply`); default the lab's */
  readonly checks?: { readonly interval?: number; readonly fall?: number; readonly rise?: number };
  /** drain.method; default health */
  readonly drainMethod?: 'health' | 'deregister';
  /** drain.answer; default 503 (deploy.yml says nothing) */
  readonly drainAnswer?: 404;
  /** the lab's one HAProxy named with its config file too (`config:`), which deploy check --live reads */
  readonly haproxyConfigFile?: boolean;
  /** with the lab's balancer alb: the endpoint's target group (the lab fills it in) */
  readonly targetGroupArn?: string;
  /** with alb and the pair: the second group's, backed by lb-b (the lab fills it in) */
  readonly secondGroupArn?: string;
  /** hosts[].target of the hosts named here: a target the group does not know */
  readonly targets?: Readonly<Record<string, string>>;
  /** rollout.canary as deploy.yml writes it (docs/canary.md) */
  readonly canary?: Readonly<Record<string, unknown>>;
  /** rollout.bake and rollout.watch as deploy.yml writes them ("5s") */
  readonly bake?: string;
  readonly watch?: string;
  /** rollout.superseded: what a job that waited for the fleet lease does with an older release */
  readonly superseded?: 'deploy' | 'skip';
  /** rollout.unreachable: skip with this max_unreachable */
  readonly skipUnreachable?: number | string;
  /**
   * the pair's lb-b reached over SSH on its host of its own (`ssh:` its
   * address): its admin socket /run/haproxy/admin.sock through stream-local
   * forwarding and its config /etc/haproxy/haproxy.cfg read there; without it,
   * deploy.yml names the same files through the lab's directory of that host
   */
  readonly peerOverSsh?: boolean;
  /**
   * nginx reached over SSH by web-1's sshd (the lab's hosts share /tmp, where
   * nginx's files are): its files edited, nginx -t and the reload run there,
   * as a balancer host's would be
   */
  readonly nginxOverSsh?: boolean;
}

const s = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

/**
 * The start/stop/status commands of one demo service. `$RELEASE` is expanded by
 * the host's shell (the command runtime sets it), every other value is the
 * lab's own constant.
 */
function commands(
  layout: LabLayout,
  service: 'app' | 'worker',
  stopTimeoutMs: number,
  brokenStop: boolean,
) {
  const { RELEASE: _release, ...env } = serviceEnv(layout, '');
  const prefix = Object.entries({ ...env, STOP_TIMEOUT_MS: String(stopTimeoutMs) })
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const ctl = `${layout.paths.root}/releases/"$RELEASE"/ctl.mjs`;
  return {
    start: `${prefix} node ${ctl} start ${service}`,
    // the common shell mistake: kill the pid of a launcher that already exited, report success
    stop: brokenStop
      ? `kill "$(cat ${layout.paths.state}/${service}.launcher.pid 2>/dev/null)" 2>/dev/null; exit 0`
      : `${prefix} node ${ctl} stop ${service}`,
    status: `${prefix} node ${ctl} status ${service}`,
  };
}

/**
 * A pair's `balancers:`: each HAProxy by its socket, with its own check
 * settings. drain.method deregister needs a deregistration delay, which no
 * haproxy config file states: then the settings are written here, where it
 * can be; otherwise each reads its own config file, as a real pair would.
 */
function pairBalancers(layout: LabLayout, options: LabConfigOptions) {
  if (layout.balancer === 'alb') return albGroups(layout, options);
  return haproxyInstances(layout).map((h) => {
    // on its host, over SSH: the paths there; else the lab's view of the same files
    const ssh = options.peerOverSsh ? h.host : undefined;
    const files = ssh ? h.own : h.files;
    return {
      name: h.name,
      kind: 'haproxy',
      ...(ssh ? { ssh: ssh.address } : {}),
      socket: files.socket,
      backend: layout.backend,
      ...(options.drainMethod === 'deregister'
        ? {
            interval: s(h.timings.interval),
            timeout: s(h.timings.checkTimeout),
            unhealthy_threshold: h.timings.fall,
            healthy_threshold: h.timings.rise,
            deregistration_delay: '5s',
          }
        : { config: files.config }),
    };
  });
}

/**
 * The pair behind the ELBv2 endpoint: two target groups (a public and an
 * internal ALB), each backed by one of the HAProxies, with its own checks.
 */
function albGroups(layout: LabLayout, options: LabConfigOptions) {
  const arns = [options.targetGroupArn ?? '', options.secondGroupArn ?? ''];
  return haproxyInstances(layout).map((h, i) => ({
    name: i === 0 ? 'public' : 'internal',
    kind: 'alb',
    target_group_arn: arns[i],
    interval: s(h.timings.interval),
    timeout: s(h.timings.checkTimeout),
    unhealthy_threshold: h.timings.fall,
    healthy_threshold: h.timings.rise,
  }));
}

function targetOf(layout: LabLayout, address: string, name: string): string {
  if (layout.balancer === 'alb') return address;
  return layout.balancer === 'nginx' ? nginxTarget(layout, address) : name;
}

/** nginx reads its own numbers (worker_shutdown_timeout, keepalive) from the files named here. */
function nginxBalancer(layout: LabLayout, options: LabConfigOptions) {
  const f = nginxFiles(layout.workDir);
  return {
    kind: 'nginx',
    ...(options.nginxOverSsh ? { ssh: layout.hosts[0]?.address ?? '' } : {}),
    config: f.upstream,
    upstream: NGINX_UPSTREAM,
    main_config: f.main,
  };
}

/** deploy.yml for the lab: service `lab` on the lab's hosts, behind the lab's HAProxy. */
export function labConfig(layout: LabLayout, options: LabConfigOptions = {}): string {
  const files = labFiles(layout.workDir);
  const t = layout.timings;
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  const sshPort = layout.hosts[0]?.sshPort ?? 22;
  const compose = layout.runtime === 'compose';
  const doc = {
    service: layout.service,
    ssh: {
      user: 'root',
      port: sshPort,
      identity_file: files.clientKey,
      known_hosts: files.knownHosts,
      connect_timeout: '5s',
    },
    hosts: layout.hosts.map((h) => ({
      name: h.name,
      address: h.address,
      target: options.targets?.[h.name] ?? targetOf(layout, h.address, h.name),
      ...(h.sshPort !== sshPort ? { ssh_port: h.sshPort } : {}),
    })),
    ...(layout.pair
      ? { balancers: pairBalancers(layout, options) }
      : layout.balancer === 'nginx'
        ? { balancer: nginxBalancer(layout, options) }
        : {
            balancer: {
              ...(layout.balancer === 'alb'
                ? // the region comes from the SDK's chain (AWS_REGION in lab.deployEnv())
                  {
                    kind: 'alb',
                    target_group_arn: options.targetGroupArn ?? '',
                    ...(layout.loadBalancerType && { type: layout.loadBalancerType }),
                  }
                : {
                    kind: 'haproxy',
                    socket: files.haproxySocket,
                    backend: layout.backend,
                    ...(options.haproxyConfigFile && { config: files.haproxyConfig }),
                  }),
              interval: s(options.checks?.interval ?? t.interval),
              timeout: s(t.checkTimeout),
              unhealthy_threshold: options.checks?.fall ?? t.fall,
              healthy_threshold: options.checks?.rise ?? t.rise,
            },
          }),
    drain: {
      // nginx has no active checks: only a `down` line takes a host out
      method: options.drainMethod ?? (layout.balancer === 'nginx' ? 'deregister' : 'health'),
      ...(options.drainAnswer && { answer: options.drainAnswer }),
      overlap: s(options.overlapMs ?? 2000),
      max_request: '5s',
      stop_timeout: s(stopTimeoutMs),
    },
    rollout: {
      batch: options.batch ?? 1,
      min_healthy: options.minHealthy ?? 1,
      verify_successes: 2,
      verify_timeout: s(options.verifyTimeoutMs ?? 10_000),
      rollback: options.rollback ?? true,
      ...(options.onFailure ? { on_failure: options.onFailure } : {}),
      ...(options.canary ? { canary: options.canary } : {}),
      ...(options.bake ? { bake: options.bake } : {}),
      ...(options.watch ? { watch: options.watch } : {}),
      ...(options.superseded ? { superseded: options.superseded } : {}),
      ...(options.skipUnreachable !== undefined
        ? { unreachable: 'skip', max_unreachable: options.skipUnreachable }
        : {}),
    },
    ...(options.hooksTimeoutMs ? { hooks: { timeout: s(options.hooksTimeoutMs) } } : {}),
    host: layout.paths,
    runtime: compose
      ? {
          kind: 'compose',
          compose_file: composeFiles(layout.workDir).composeFile,
          compose_command: ['docker-compose'],
        }
      : { kind: 'command' },
    services: [
      {
        name: 'app',
        check: {
          http: `http://${layout.selfName}:${layout.appPort}/health`,
          ...(options.expectRelease ? { expect_release: true } : {}),
          timeout: '1s',
        },
        ...(compose ? {} : commands(layout, 'app', stopTimeoutMs, options.brokenStop === 'app')),
      },
      {
        name: 'worker',
        check: {
          heartbeat: { dir: 'marks', max_age: s(options.heartbeatMaxAgeMs ?? 5000), expected: 2 },
        },
        ...(compose
          ? {}
          : commands(layout, 'worker', stopTimeoutMs, options.brokenStop === 'worker')),
      },
    ],
    watchdog: {
      every: s(options.watchdogEveryMs ?? 10_000),
      failures_before_restart: 4,
      successes_before_healthy: 2,
      start_period: '10s',
      max_restarts: 3,
      restart_window: '5m',
    },
  };
  return `# generated by scripts/lab (labConfig) for the local lab fleet\n${stringify(doc, { lineWidth: 0 })}`;
}
