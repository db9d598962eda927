import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import type { LabLayout } from './layout.js';
import { isAlive, killGroupSync, until } from './procs.js';

/**
 * The lab's nginx (Debian's nginx-light) in front of the hosts: one upstream
 * in a file of its own that handoff edits (`down` on a drained host's line),
 * the main config that includes it, its pid file and logs, all under the work dir.
 */
export function nginxFiles(workDir: string) {
  const dir = path.join(workDir, 'nginx');
  return {
    dir,
    main: path.join(dir, 'nginx.conf'),
    upstream: path.join(dir, 'upstream.conf'),
    /** included too: a test writes garbage here to make `nginx -t` fail */
    extra: path.join(dir, 'extra.conf'),
    pid: path.join(dir, 'nginx.pid'),
    log: path.join(dir, 'error.log'),
  };
}

export const NGINX_UPSTREAM = 'lab';
/** ≥ the lab's drain.max_request (5 s): the deregistration-delay invariant */
export const NGINX_SHUTDOWN_TIMEOUT = '10s';

export function nginxFrontend(layout: LabLayout) {
  const subnet = layout.frontend.address.replace(/\.\d+$/, '');
  return { address: `${subnet}.102`, port: layout.frontend.port };
}

export const nginxTarget = (layout: LabLayout, address: string): string =>
  `${address}:${layout.appPort}`;

export function nginxUpstream(layout: LabLayout): string {
  return [
    `upstream ${NGINX_UPSTREAM} {`,
    ...layout.hosts.map((h) => `    server ${nginxTarget(layout, h.address)};`),
    // idle connections to the hosts: 60 s by default, below the app's 65 s keep-alive
    '    keepalive 8;',
    '}',
    '',
  ].join('\n');
}

/**
 * Like the HAProxy lab: no retry to another host (`proxy_next_upstream off`),
 * so a request sent to a dying host fails as a real client would see it.
 */
export function nginxMainConfig(layout: LabLayout): string {
  const f = nginxFiles(layout.workDir);
  const front = nginxFrontend(layout);
  const temp = (name: string) => `${name}_temp_path ${path.join(f.dir, 'tmp', name)};`;
  return [
    `pid ${f.pid};`,
    `error_log ${f.log} notice;`,
    'worker_processes 2;',
    `worker_shutdown_timeout ${NGINX_SHUTDOWN_TIMEOUT};`,
    'events { worker_connections 1024; }',
    'http {',
    '    access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((n) => `    ${temp(n)}`),
    `    include ${f.upstream};`,
    `    include ${f.extra};`,
    '    keepalive_timeout 10s;',
    '    server {',
    `        listen ${front.address}:${front.port};`,
    '        location / {',
    `            proxy_pass http://${NGINX_UPSTREAM};`,
    '            proxy_http_version 1.1;',
    '            proxy_set_header Connection "";',
    '            proxy_next_upstream off;',
    '        }',
    '    }',
    '}',
    '',
  ].join('\n');
}

/** Writes the files, tests them, starts the master in the foreground of its own group. */
export async function startNginx(
  layout: LabLayout,
  onStarted: (pid: number) => void,
): Promise<number> {
  const f = nginxFiles(layout.workDir);
  await mkdir(path.join(f.dir, 'tmp'), { recursive: true });
  await writeFile(f.main, nginxMainConfig(layout));
  await writeFile(f.upstream, nginxUpstream(layout));
  await writeFile(f.extra, '');
  await execa('nginx', ['-t', '-q', '-c', f.main], { timeout: 10_000 });
  const fd = openSync(path.join(f.dir, 'stdout.log'), 'w');
  const child = spawn('nginx', ['-c', f.main, '-g', 'daemon off;'], {
    detached: true,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start nginx');
  onStarted(pid);
  const up = await until(
    () =>
      !isAlive(pid) || (existsSync(f.pid) && readFileSync(f.pid, 'utf8').trim() === String(pid)),
    10_000,
  );
  if (!up || !isAlive(pid)) {
    killGroupSync(pid);
    throw new Error(`nginx did not come up; ${f.log}:\n${readFileSync(f.log, 'utf8')}`);
  }
  return pid;
}
