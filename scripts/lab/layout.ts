import path from 'node:path';

/** How the lab's balancer probes hosts: short, so a drain takes seconds, and all parameters. */
export interface LabTimings {
  /** HAProxy `inter`: ms between health checks */
  readonly interval: number;
  /** HAProxy `fall`: failed checks before a server is DOWN */
  readonly fall: number;
  /** HAProxy `rise`: passed checks before a server is UP again */
  readonly rise: number;
  /** HAProxy `timeout check` */
  readonly checkTimeout: number;
}

// checkTimeout below interval: overlapping checks would break the detection bound (`deploy check`)
export const defaultTimings: LabTimings = { interval: 1000, fall: 2, rise: 2, checkTimeout: 500 };
/**
 * The shortest checks AWS accepts for an ALB target group (ModifyTargetGroup:
 * HealthCheckIntervalSeconds 5–300, HealthCheckTimeoutSeconds 2–120, the
 * thresholds 2–10; balancer/alb/config/ranges.ts): the lab runs only what AWS would.
 */
export const albTimings: LabTimings = { interval: 5000, fall: 2, rise: 2, checkTimeout: 2000 };
/** the second HAProxy of a pair: slower, as a peer configured apart drifts (inter 3s fall 3) */
export const pairTimings: LabTimings = { interval: 1500, fall: 3, rise: 2, checkTimeout: 500 };

/** what the lab's deploy.yml names as its balancer: HAProxy itself, the ELBv2 endpoint in front of it, or nginx (nginx.ts) */
export type LabBalancer = 'haproxy' | 'alb' | 'nginx';

export interface LabHostPlan {
  /** also the HAProxy server name and the host's hostname inside its namespace */
  readonly name: string;
  readonly address: string;
  readonly sshPort: number;
  /** a directory first on its PATH, before the lab's node (LayoutOptions.pathFirst) */
  readonly pathFirst?: string;
  /**
   * directories of the lab's bind-mounted into the host, `[from, to]`: a
   * balancer host's /etc/haproxy and /run/haproxy, which the lab reaches as `from`
   */
  readonly binds?: readonly (readonly [from: string, to: string])[];
  /** sshd allows stream-local forwarding (`AllowStreamLocalForwarding local`): a balancer host's admin socket */
  readonly streamLocal?: true;
}

/** Where everything of one lab lives: addresses, ports, paths. Pure data. */
export interface LabLayout {
  readonly workDir: string;
  readonly service: string;
  readonly hosts: readonly LabHostPlan[];
  readonly frontend: { readonly address: string; readonly port: number };
  /** the app's port on every host */
  readonly appPort: number;
  /** resolves, inside each host, to that host's own address (its private /etc/hosts) */
  readonly selfName: string;
  readonly backend: string;
  readonly timings: LabTimings;
  readonly balancer: LabBalancer;
  /** with balancer alb: the ELBv2 endpoint's group is a Network Load Balancer's (default application) */
  readonly loadBalancerType?: 'network';
  /**
   * a second HAProxy (`lb-b`) in front of the same hosts, with checks of its own and
   * its own frontend; both keep a server-state file across reloads (haproxy.ts)
   */
  readonly pair?: {
    readonly timings: LabTimings;
    readonly frontend: { readonly address: string; readonly port: number };
    /**
     * lb-b's host of its own: sshd on the frontend's address, in its own
     * namespaces, where lb-b's HAProxy runs with its files under /etc/haproxy
     * and /run/haproxy (bound from the host's directory)
     */
    readonly host: LabHostPlan;
  };
  /**
   * the HAProxy backend has `http-check disable-on-404` (a 404 soft-stops a server:
   * NOLB) and a persistence cookie `SRV` naming each server, which a soft stop keeps serving
   */
  readonly disableOn404?: true;
  /** command: the demo's start/stop/status commands; compose: real containers (compose.ts) */
  readonly runtime: LabRuntime;
  /** the directories each host gets a private tmpfs over */
  readonly privateMounts: readonly string[];
  /** host.root, host.state, host.lock, host.agent of deploy.yml */
  readonly paths: {
    readonly root: string;
    readonly state: string;
    readonly lock: string;
    readonly agent: string;
  };
}

export type LabRuntime = 'command' | 'compose';

export interface LayoutOptions {
  /** default command */
  readonly runtime?: LabRuntime;
  /** default 3 */
  readonly hosts?: number;
  /** default /tmp/handoff-lab */
  readonly workDir?: string;
  /** the first three octets; default 127.0.10, away from the 127.0.0.1 other tests use */
  readonly subnet?: string;
  readonly sshPort?: number;
  readonly appPort?: number;
  readonly frontendPort?: number;
  readonly timings?: Partial<LabTimings>;
  /** default haproxy */
  readonly balancer?: LabBalancer;
  /** with balancer alb: serve the target group as a Network Load Balancer's */
  readonly loadBalancerType?: 'network';
  /** a second HAProxy with these timings (default pairTimings) on <subnet>.101 */
  readonly pair?: boolean | Partial<LabTimings>;
  /** LabLayout.disableOn404 */
  readonly disableOn404?: boolean;
  /**
   * host name → a directory put first on that host's PATH, ahead of the lab's
   * node: a test puts a `node` of its own there (an old one) whenever it likes
   */
  readonly pathFirst?: Readonly<Record<string, string>>;
}

export const LAB_SERVICE = 'lab';
export const DEFAULT_WORK_DIR = '/tmp/handoff-lab';

export function labLayout(options: LayoutOptions = {}): LabLayout {
  const count = options.hosts ?? 3;
  if (!Number.isInteger(count) || count < 1 || count > 99) {
    throw new Error(`--hosts must be a whole number from 1 to 99, got ${count}`);
  }
  const subnet = options.subnet ?? '127.0.10';
  const sshPort = options.sshPort ?? 22;
  const service = LAB_SERVICE;
  const balancer = options.balancer ?? 'haproxy';
  const workDir = path.resolve(options.workDir ?? DEFAULT_WORK_DIR);
  return {
    workDir,
    service,
    hosts: Array.from({ length: count }, (_, i) => {
      const name = `web-${i + 1}`;
      const first = options.pathFirst?.[name];
      return {
        name,
        address: `${subnet}.${i + 1}`,
        sshPort,
        ...(first ? { pathFirst: first } : {}),
      };
    }),
    frontend: { address: `${subnet}.100`, port: options.frontendPort ?? 8080 },
    appPort: options.appPort ?? 8000,
    selfName: 'lab-self',
    backend: `be_${service}`,
    timings: { ...(balancer === 'alb' ? albTimings : defaultTimings), ...options.timings },
    balancer,
    ...(options.loadBalancerType && { loadBalancerType: options.loadBalancerType }),
    ...(options.pair
      ? {
          pair: {
            timings: { ...pairTimings, ...(options.pair === true ? {} : options.pair) },
            frontend: { address: `${subnet}.101`, port: options.frontendPort ?? 8080 },
            host: balancerHost(workDir, 'lb-b', `${subnet}.101`, sshPort),
          },
        }
      : {}),
    ...(options.disableOn404 && { disableOn404: true as const }),
    runtime: options.runtime ?? 'command',
    // parents, not just <svc>: proper-lockfile and temp+rename write siblings of these paths
    privateMounts: [
      '/srv/handoff',
      '/run/handoff',
      '/var/lock/handoff',
      '/opt/handoff',
      '/etc/handoff',
      '/etc/cron.d',
    ],
    paths: {
      root: `/srv/handoff/${service}`,
      state: `/run/handoff/${service}`,
      lock: `/var/lock/handoff/${service}`,
      agent: '/opt/handoff',
    },
  };
}

/** Where HAProxy's files are on a balancer host: the paths docs/balancers.md names. */
export const BALANCER_HOST_PATHS = {
  config: '/etc/haproxy/haproxy.cfg',
  socket: '/run/haproxy/admin.sock',
  serverState: '/run/haproxy/server-state',
} as const;

/** A host that runs a balancer: its /etc/haproxy and /run/haproxy are directories of its own. */
function balancerHost(workDir: string, name: string, address: string, sshPort: number) {
  const dir = labFiles(workDir).hostDir(name);
  const own = (to: string) => [path.join(dir, to), to] as const;
  return {
    name,
    address,
    sshPort,
    binds: [own('/etc/haproxy'), own('/run/haproxy')],
    streamLocal: true,
  } as const satisfies LabHostPlan;
}

/** Every host with an sshd of its own: the fleet's, then lb-b's of a pair. */
export function sshHosts(layout: LabLayout): readonly LabHostPlan[] {
  return layout.pair ? [...layout.hosts, layout.pair.host] : layout.hosts;
}

export function frontendUrl(layout: LabLayout): string {
  return `http://${layout.frontend.address}:${layout.frontend.port}/`;
}

export const labFiles = (workDir: string) => ({
  state: path.join(workDir, 'lab.json'),
  clientKey: path.join(workDir, 'client', 'id_ed25519'),
  authorizedKeys: path.join(workDir, 'client', 'authorized_keys'),
  knownHosts: path.join(workDir, 'client', 'known_hosts'),
  haproxyConfig: path.join(workDir, 'haproxy', 'haproxy.cfg'),
  haproxySocket: path.join(workDir, 'haproxy', 'admin.sock'),
  haproxyLog: path.join(workDir, 'haproxy', 'haproxy.log'),
  /** the second HAProxy of a pair, as the lab reaches them: under its host's directory (balancerHost) */
  haproxyB: balancerHostHaproxy(path.join(workDir, 'hosts', 'lb-b')),
  hostDir: (name: string) => path.join(workDir, 'hosts', name),
});

/** One HAProxy's files: config, admin socket, log, and the server-state file a reload reads. */
export function haproxyFiles(dir: string) {
  return {
    config: path.join(dir, 'haproxy.cfg'),
    socket: path.join(dir, 'admin.sock'),
    log: path.join(dir, 'haproxy.log'),
    serverState: path.join(dir, 'server-state'),
  };
}

/** A balancer host's HAProxy files as the lab reaches them: through the host's directory (its binds). */
function balancerHostHaproxy(hostDir: string): ReturnType<typeof haproxyFiles> {
  const { config, socket, serverState } = BALANCER_HOST_PATHS;
  return {
    config: path.join(hostDir, config),
    socket: path.join(hostDir, socket),
    log: path.join(hostDir, 'haproxy.log'),
    serverState: path.join(hostDir, serverState),
  };
}

export function pairFrontendUrl(layout: LabLayout): string | undefined {
  const f = layout.pair?.frontend;
  return f ? `http://${f.address}:${f.port}/` : undefined;
}
