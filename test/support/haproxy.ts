import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';

/**
 * A real haproxy for tests, configured like an ALB: an HTTP health check that
 * wants a 200, no retry and no redispatch (a request sent to a dead server
 * fails, as it would behind an ALB), and an admin socket in a temp dir.
 */

export interface HaproxyServerSpec {
  readonly name: string;
  /** host:port */
  readonly address: string;
}

export interface HaproxyOptions {
  readonly servers: readonly HaproxyServerSpec[];
  readonly backend?: string;
  /** ms */
  readonly inter?: number;
  readonly fall?: number;
  readonly rise?: number;
  /** ms */
  readonly timeoutCheck?: number;
  /** also listen on `stats socket ipv4@127.0.0.1:<port>` */
  readonly tcpSocket?: boolean;
}

export interface RunningHaproxy {
  readonly backend: string;
  /** the unix admin socket */
  readonly socket: string;
  /** `tcp://127.0.0.1:<port>` when asked for */
  readonly tcpSocket?: string;
  readonly configPath: string;
  /** `http://127.0.0.1:<port>` of the frontend */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startHaproxy(options: HaproxyOptions): Promise<RunningHaproxy> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'handoff-haproxy-'));
  const backend = options.backend ?? 'be_app';
  const socket = path.join(dir, 'admin.sock');
  const frontendPort = await freePort();
  const tcpPort = options.tcpSocket ? await freePort() : undefined;
  const configPath = path.join(dir, 'haproxy.cfg');
  await writeFile(
    configPath,
    haproxyConfig({ ...options, backend, socket, frontendPort, tcpPort }),
  );
  const child = execa('haproxy', ['-f', configPath, '-db'], {
    reject: false,
    all: true,
    buffer: true,
  });
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    await child;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await awaitReady(child, socket);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    backend,
    socket,
    ...(tcpPort ? { tcpSocket: `tcp://127.0.0.1:${tcpPort}` } : {}),
    configPath,
    url: `http://127.0.0.1:${frontendPort}`,
    stop,
  };
}

export function haproxyConfig(
  o: HaproxyOptions & { backend: string; socket: string; frontendPort: number; tcpPort?: number },
): string {
  return [
    'global',
    `  stats socket ${o.socket} mode 600 level admin`,
    ...(o.tcpPort ? [`  stats socket ipv4@127.0.0.1:${o.tcpPort} level admin`] : []),
    '',
    'defaults',
    '  mode http',
    '  retries 0',
    '  no option redispatch',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    `  timeout check ${o.timeoutCheck ?? 500}ms`,
    '',
    'frontend fe',
    `  bind 127.0.0.1:${o.frontendPort}`,
    `  default_backend ${o.backend}`,
    '',
    `backend ${o.backend}`,
    '  option httpchk GET /health',
    '  http-check expect status 200',
    `  default-server inter ${o.inter ?? 200}ms fall ${o.fall ?? 2} rise ${o.rise ?? 2}`,
    ...o.servers.map((s) => `  server ${s.name} ${s.address} check`),
    '',
  ].join('\n');
}

/** Polls the admin socket until haproxy answers, or fails with its output. */
async function awaitReady(child: ResultPromise, socket: string): Promise<void> {
  let exited = false;
  void child.finally(() => (exited = true));
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !exited) {
    if ((await ask(socket, 'show info')).includes('Name: HAProxy')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const result = exited ? await child : undefined;
  throw new Error(`haproxy did not come up: ${String(result?.all ?? 'no answer on its socket')}`);
}

function ask(socket: string, command: string): Promise<string> {
  return new Promise((resolve) => {
    const conn = net.connect(socket);
    let out = '';
    conn.setTimeout(1000, () => conn.destroy());
    conn.on('connect', () => conn.end(`${command}\n`));
    conn.on('data', (d: Buffer) => (out += d.toString()));
    conn.on('error', () => resolve(''));
    conn.on('close', () => resolve(out));
  });
}

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
