import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { nsenterArgv } from './exec.js';
import type { LabHost } from './host.js';
import {
  BALANCER_HOST_PATHS,
  haproxyFiles,
  labFiles,
  type LabHostPlan,
  type LabLayout,
  type LabTimings,
} from './layout.js';
import { isAlive, killGroupSync, until } from './procs.js';

/** One HAProxy of the lab: the first (`lb-a`), or the second of a pair (`lb-b`). */
export interface HaproxyInstance {
  readonly name: 'lb-a' | 'lb-b';
  readonly timings: LabTimings;
  readonly frontend: { readonly address: string; readonly port: number };
  /** its files as the lab reaches them from this machine */
  readonly files: ReturnType<typeof haproxyFiles>;
  /** the same files as HAProxy names them where it runs (lb-b: on its host) */
  readonly own: { readonly config: string; readonly socket: string; readonly serverState: string };
  /** the host it runs on (lb-b's of a pair); none: this machine */
  readonly host?: LabHostPlan;
  /** a pair keeps its servers' states across a reload, as docs/balancers.md asks */
  readonly keepState: boolean;
}

export function haproxyInstances(layout: LabLayout): HaproxyInstance[] {
  const files = labFiles(layout.workDir);
  const local = haproxyFiles(path.dirname(files.haproxyConfig));
  const first: HaproxyInstance = {
    name: 'lb-a',
    timings: layout.timings,
    frontend: layout.frontend,
    files: local,
    own: local,
    keepState: layout.pair !== undefined,
  };
  if (!layout.pair) return [first];
  return [
    first,
    {
      name: 'lb-b',
      timings: layout.pair.timings,
      frontend: layout.pair.frontend,
      files: files.haproxyB,
      own: BALANCER_HOST_PATHS,
      host: layout.pair.host,
      keepState: true,
    },
  ];
}

/**
 * Configured like an ALB in front of the fleet: an HTTP health check that wants
 * a 200, no retry and no redispatch (a request sent to a dying server fails, as
 * it would for a real client), and a client keep-alive shorter than the app's so
 * the balancer, never the app, closes an idle connection.
 */
export function haproxyConfig(
  layout: LabLayout,
  instance: HaproxyInstance = haproxyInstances(layout)[0]!,
): string {
  const t = instance.timings;
  const { socket, serverState } = instance.own;
  return [
    'global',
    `  stats socket ${socket} mode 600 level admin`,
    '  stats timeout 30s',
    '  maxconn 4096',
    ...(instance.keepState ? [`  server-state-file ${serverState}`] : []),
    '',
    'defaults',
    '  mode http',
    '  retries 0',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout http-keep-alive 10s',
    `  timeout check ${t.checkTimeout}ms`,
    // a reload: the old process answers each idle keep-alive client once more, with
    // Connection: close, instead of cutting it while a request is on its way
    ...(instance.keepState
      ? ['  load-server-state-from-file global', '  option idle-close-on-response']
      : []),
    '',
    `frontend fe_${layout.service}`,
    `  bind ${instance.frontend.address}:${instance.frontend.port}`,
    `  default_backend ${layout.backend}`,
    '',
    `backend ${layout.backend}`,
    '  balance roundrobin',
    '  option httpchk GET /health',
    '  http-check expect status 200',
    ...(layout.disableOn404
      ? ['  http-check disable-on-404', '  cookie SRV insert indirect nocache']
      : []),
    `  default-server inter ${t.interval}ms fall ${t.fall} rise ${t.rise}`,
    ...layout.hosts.map(
      (h) =>
        `  server ${h.name} ${h.address}:${layout.appPort} check${layout.disableOn404 ? ` cookie ${h.name}` : ''}`,
    ),
    '',
  ].join('\n');
}

/** One command on the admin socket; resolves with the whole answer. */
export function haproxyCommand(socket: string, command: string, timeoutMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = net.connect(socket);
    let out = '';
    conn.setTimeout(timeoutMs, () =>
      conn.destroy(new Error(`haproxy socket: no answer to '${command}'`)),
    );
    conn.on('connect', () => conn.end(`${command}\n`));
    conn.on('data', (d) => (out += d.toString()));
    conn.on('error', reject);
    conn.on('close', () => resolve(out));
  });
}

export type StatRow = Readonly<Record<string, string>>;

/** `show stat` as rows keyed by the CSV header (pxname, svname, status, …). */
export async function showStat(socket: string): Promise<StatRow[]> {
  const lines = (await haproxyCommand(socket, 'show stat'))
    .split('\n')
    .filter((l) => l.trim() !== '');
  const header = lines[0]?.replace(/^# /, '').split(',') ?? [];
  return lines.slice(1).map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(header.map((key, i) => [key, cells[i] ?? '']));
  });
}

/** HAProxy's status of one server: `UP`, `DOWN`, `UP 1/2`, `MAINT`, … or undefined. */
export async function serverStatus(
  socket: string,
  backend: string,
  server: string,
): Promise<string | undefined> {
  const rows = await showStat(socket);
  return rows.find((r) => r.pxname === backend && r.svname === server)?.status;
}

/** Where an HAProxy runs: this machine, or inside its host's namespaces (lb-b's, started). */
type Where = Pick<LabHost, 'pid'> | undefined;

/** argv of `haproxy args…` where the instance runs, naming its config as it sees it */
function haproxyArgv(instance: HaproxyInstance, where: Where, args: readonly string[]): string[] {
  const argv = ['haproxy', '-f', instance.own.config, ...args];
  return where ? nsenterArgv(where, argv) : argv;
}

/** lb-b of a pair needs its host (`where`) started: it runs in that host's namespaces. */
export async function startHaproxy(
  layout: LabLayout,
  onStarted: (pid: number) => void,
  instance: HaproxyInstance = haproxyInstances(layout)[0]!,
  where?: Where,
): Promise<number> {
  const { files } = instance;
  if (instance.host && !where)
    throw new Error(`${instance.name} runs on ${instance.host.name}: start it there`);
  await mkdir(path.dirname(files.config), { recursive: true });
  await writeFile(files.config, haproxyConfig(layout, instance));
  await rm(files.socket, { force: true });
  await rm(files.serverState, { force: true });
  const [cmd, ...args] = haproxyArgv(instance, where, ['-c', '-q']);
  await execa(cmd as string, args, { timeout: 10_000 });
  return spawnHaproxy(instance, where, [], onStarted);
}

/**
 * A reload as a config-management run does it: the servers' states saved to
 * the server-state file, then a new process that takes over the sockets and
 * tells the old one (-sf) to finish its connections and go. Resolves with the
 * new process's pid once it answers the admin socket.
 */
export async function reloadHaproxy(
  instance: HaproxyInstance,
  where: Where,
  oldPid: number,
  onStarted: (pid: number) => void,
): Promise<number> {
  const { files } = instance;
  if (instance.keepState) {
    const states = await haproxyCommand(files.socket, 'show servers state');
    await writeFile(files.serverState, states);
  }
  return spawnHaproxy(instance, where, ['-sf', String(oldPid)], onStarted, oldPid);
}

async function spawnHaproxy(
  instance: HaproxyInstance,
  where: Where,
  extra: readonly string[],
  onStarted: (pid: number) => void,
  replaces?: number,
): Promise<number> {
  const { files } = instance;
  const fd = openSync(files.log, replaces === undefined ? 'w' : 'a');
  // nsenter into a mount and UTS namespace execs haproxy in its own place: the pid is haproxy's
  const [cmd, ...args] = haproxyArgv(instance, where, ['-db', ...extra]);
  const child = spawn(cmd as string, args, {
    detached: true,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start haproxy');
  onStarted(pid);
  // up when the process answering the socket is this one (a reload: not the old one)
  const up = await until(
    async () =>
      !isAlive(pid) ||
      (await haproxyCommand(files.socket, 'show info', 500).catch(() => '')).includes(
        `Pid: ${pid}\n`,
      ),
    10_000,
  );
  if (!up || !isAlive(pid)) {
    killGroupSync(pid);
    const log = readFileSync(files.log, 'utf8');
    throw new Error(`haproxy did not come up; ${files.log}:\n${log}`);
  }
  return pid;
}
