import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { labFiles, type LabLayout } from './layout.js';
import { isAlive, killGroupSync, until } from './procs.js';

/**
 * Configured like an ALB in front of the fleet: an HTTP health check that wants
 * a 200, no retry and no redispatch (a request sent to a dying server fails, as
 * it would for a real client), and a client keep-alive shorter than the app's so
 * the balancer, never the app, closes an idle connection.
 */
export function haproxyConfig(layout: LabLayout): string {
  const t = layout.timings;
  const socket = labFiles(layout.workDir).haproxySocket;
  return [
    'global',
    `  stats socket ${socket} mode 600 level admin`,
    '  stats timeout 30s',
    '  maxconn 4096',
    '',
    'defaults',
    '  mode http',
    '  retries 0',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout http-keep-alive 10s',
    `  timeout check ${t.checkTimeout}ms`,
    '',
    `frontend fe_${layout.service}`,
    `  bind ${layout.frontend.address}:${layout.frontend.port}`,
    `  default_backend ${layout.backend}`,
    '',
    `backend ${layout.backend}`,
    '  balance roundrobin',
    '  option httpchk GET /health',
    '  http-check expect status 200',
    `  default-server inter ${t.interval}ms fall ${t.fall} rise ${t.rise}`,
    ...layout.hosts.map((h) => `  server ${h.name} ${h.address}:${layout.appPort} check`),
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

export async function startHaproxy(
  layout: LabLayout,
  onStarted: (pid: number) => void,
): Promise<number> {
  const files = labFiles(layout.workDir);
  await mkdir(path.dirname(files.haproxyConfig), { recursive: true });
  await writeFile(files.haproxyConfig, haproxyConfig(layout));
  await rm(files.haproxySocket, { force: true });
  await execa('haproxy', ['-c', '-q', '-f', files.haproxyConfig], { timeout: 10_000 });
  const fd = openSync(files.haproxyLog, 'w');
  const child = spawn('haproxy', ['-db', '-f', files.haproxyConfig], {
    detached: true,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start haproxy');
  onStarted(pid);
  const up = await until(
    async () =>
      !isAlive(pid) ||
      (await haproxyCommand(files.haproxySocket, 'show info', 500).catch(() => '')).includes(
        'Name: HAProxy',
      ),
    10_000,
  );
  if (!up || !isAlive(pid)) {
    killGroupSync(pid);
    const log = readFileSync(files.haproxyLog, 'utf8');
    throw new Error(`haproxy did not come up; ${files.haproxyLog}:\n${log}`);
  }
  return pid;
}
