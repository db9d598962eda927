import { podman, tagImage } from './compose.js';
import { labConfig, type LabConfigOptions } from './config.js';
import { LAB_REGION, type Elbv2Endpoint } from './elbv2/endpoint.js';
import { inHost, sshExec, type ExecOptions, type ExecResult } from './exec.js';
import {
  haproxyCommand,
  haproxyInstances,
  reloadHaproxy,
  serverStatus,
  showStat,
  type StatRow,
} from './haproxy.js';
import type { LabHost } from './host.js';
import { frontendUrl, labFiles, type LabLayout } from './layout.js';
import { nginxFiles, nginxFrontend } from './nginx.js';
import { until } from './procs.js';
import {
  startByHand,
  startServicesDirectly,
  stageRelease,
  stopServicesDirectly,
  type StageOptions,
} from './services.js';

/** One of the lab's HAProxies, by the name the pair's deploy.yml gives it. */
export interface LabHaproxy {
  readonly name: string;
  /** its frontend */
  readonly url: string;
  readonly socket: string;
  /** the host it runs on, in that host's namespaces (lb-b's of a pair); none: this machine */
  readonly host?: LabHost;
  serverStatus(server: string): Promise<string | undefined>;
  haproxy(command: string): Promise<string>;
  /** a reload as config management does it (haproxy.ts); resolves with the new pid */
  reload(): Promise<number>;
}

export interface Lab {
  readonly layout: LabLayout;
  readonly hosts: readonly LabHost[];
  /** `http://127.0.10.100:8080/` */
  readonly url: string;
  readonly haproxySocket: string;
  readonly backend: string;
  readonly identityFile: string;
  readonly knownHosts: string;
  host(name: string): LabHost;
  /** run argv inside the host's namespaces (nsenter), not over SSH */
  inHost(
    host: string | LabHost,
    argv: readonly string[],
    options?: ExecOptions,
  ): Promise<ExecResult>;
  /** run argv on the host through the OpenSSH client, strict host key checking */
  ssh(host: string | LabHost, argv: readonly string[], options?: ExecOptions): Promise<ExecResult>;
  showStat(): Promise<StatRow[]>;
  /** `UP`, `DOWN`, `UP 1/2`, `MAINT`, … */
  serverStatus(server: string): Promise<string | undefined>;
  /** poll until the server's status satisfies `wanted`; resolves with the elapsed ms */
  waitForStatus(
    server: string,
    wanted: (status: string) => boolean,
    timeoutMs: number,
  ): Promise<number>;
  haproxy(command: string): Promise<string>;
  /** every HAProxy in front of the hosts: lb-a, and lb-b of a pair */
  readonly haproxies: readonly LabHaproxy[];
  /** with balancer alb: the ELBv2 endpoint deploy.yml's target group lives on */
  readonly elbv2?: Elbv2Endpoint;
  /** with balancer nginx: its files (the upstream handoff edits, the main config); `url` is its frontend */
  readonly nginx?: ReturnType<typeof nginxFiles>;
  /**
   * The environment `deploy` runs in: with balancer alb, the SDK's standard
   * endpoint override, a region and dummy credentials (the endpoint checks no signature)
   */
  deployEnv(): Record<string, string>;
  /** a deploy.yml for this lab */
  config(options?: LabConfigOptions): string;
  stageRelease(host: string | LabHost, release: string, options?: StageOptions): Promise<string>;
  startServicesDirectly(host: string | LabHost, releaseDir: string): Promise<void>;
  /** app and worker started as before handoff: `setsid node app.mjs &`, no pid file */
  startByHand(host: string | LabHost, releaseDir: string): Promise<void>;
  stopServicesDirectly(host: string | LabHost, releaseDir: string): Promise<void>;
  /** compose mode: image `localhost/handoff-lab:<release>` on every host, as a pull would make it */
  tagImage(release: string): Promise<void>;
  /** compose mode: `podman <args>` against the host's own engine */
  podman(host: string | LabHost, args: readonly string[]): Promise<ExecResult>;
  /** kill every process of every host and HAProxy; the namespaces and their mounts vanish */
  stop(): Promise<void>;
}

/** The handle a test holds: addresses, shells into hosts, HAProxy state, test aids. */
export function labApi(
  layout: LabLayout,
  hosts: readonly LabHost[],
  stop: () => Promise<void>,
  more: {
    readonly elbv2?: Elbv2Endpoint | undefined;
    /** lb-b's host of a pair */
    readonly lbHost?: LabHost | undefined;
    readonly onHaproxy?: (pid: number) => void;
  } = {},
): Lab {
  const { elbv2, lbHost, onHaproxy = () => undefined } = more;
  const files = labFiles(layout.workDir);
  const byName = (h: string | LabHost): LabHost => {
    if (typeof h !== 'string') return h;
    const found = hosts.find((x) => x.name === h);
    if (!found)
      throw new Error(`no lab host named ${h}; hosts are ${hosts.map((x) => x.name).join(', ')}`);
    return found;
  };
  const socket = files.haproxySocket;
  const haproxies = haproxyInstances(layout).map((instance): LabHaproxy => {
    const where = instance.host ? lbHost : undefined;
    if (instance.host && !where)
      throw new Error(`${instance.name}: its host ${instance.host.name} did not start`);
    return {
      name: instance.name,
      url: `http://${instance.frontend.address}:${instance.frontend.port}/`,
      socket: instance.files.socket,
      ...(where ? { host: where } : {}),
      serverStatus: (server) => serverStatus(instance.files.socket, layout.backend, server),
      haproxy: (command) => haproxyCommand(instance.files.socket, command),
      reload: async () => {
        const info = await haproxyCommand(instance.files.socket, 'show info');
        const pid = Number(/^Pid: (\d+)$/m.exec(info)?.[1]);
        if (!Number.isInteger(pid)) throw new Error(`${instance.name}: no Pid in show info`);
        return reloadHaproxy(instance, where, pid, onHaproxy);
      },
    };
  });
  return {
    haproxies,
    layout,
    hosts,
    url: layout.balancer === 'nginx' ? nginxUrl(layout) : frontendUrl(layout),
    ...(layout.balancer === 'nginx' ? { nginx: nginxFiles(layout.workDir) } : {}),
    haproxySocket: socket,
    backend: layout.backend,
    identityFile: files.clientKey,
    knownHosts: files.knownHosts,
    host: byName,
    inHost: (h, argv, o) => inHost(byName(h), argv, o),
    ssh: (h, argv, o) => sshExec(layout.workDir, byName(h), argv, o),
    showStat: () => showStat(socket),
    serverStatus: (server) => serverStatus(socket, layout.backend, server),
    waitForStatus: async (server, wanted, timeoutMs) => {
      const started = Date.now();
      let last: string | undefined;
      const ok = await until(async () => {
        last = await serverStatus(socket, layout.backend, server);
        return last !== undefined && wanted(last);
      }, timeoutMs);
      if (!ok)
        throw new Error(`${server}: still ${last ?? 'unknown'} at HAProxy after ${timeoutMs} ms`);
      return Date.now() - started;
    },
    haproxy: (command) => haproxyCommand(socket, command),
    ...(elbv2 ? { elbv2 } : {}),
    deployEnv: (): Record<string, string> =>
      elbv2
        ? {
            AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2: elbv2.url,
            AWS_ENDPOINT_URL_CLOUDWATCH: elbv2.url,
            AWS_REGION: LAB_REGION,
            AWS_ACCESS_KEY_ID: 'lab',
            AWS_SECRET_ACCESS_KEY: 'lab',
          }
        : {},
    config: (o) =>
      labConfig(layout, {
        ...o,
        ...(elbv2 ? { targetGroupArn: elbv2.group.arn } : {}),
        ...(elbv2?.groups[1] ? { secondGroupArn: elbv2.groups[1].arn } : {}),
      }),
    stageRelease: (h, release, o) => stageRelease(layout, byName(h), release, o),
    startServicesDirectly: (h, dir) => startServicesDirectly(layout, byName(h), dir),
    startByHand: (h, dir) => startByHand(layout, byName(h), dir),
    stopServicesDirectly: (h, dir) => stopServicesDirectly(layout, byName(h), dir),
    tagImage: (release) => tagImage(layout, hosts, release),
    podman: (h, args) => podman(layout, byName(h), args),
    stop,
  };
}

function nginxUrl(layout: LabLayout): string {
  const f = nginxFrontend(layout);
  return `http://${f.address}:${f.port}/`;
}
