import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { BalancerDeps } from '../../src/balancer/balancer.js';
import { HaproxyBalancer } from '../../src/balancer/haproxy/adapter.js';
import type { RuntimeApiOptions } from '../../src/balancer/haproxy/runtime-api.js';

/**
 * A stand-in for haproxy's socket: answers each command from a script, records
 * what it got (a line a connection). A line of `;`-separated commands that is
 * not scripted whole is answered as haproxy does: each command's answer, then
 * an empty line.
 */
export interface FakeSocket {
  readonly path: string;
  readonly received: string[];
  /** connections accepted, whether or not they sent a line */
  readonly connections: () => number;
  answers: Record<string, string | null>;
  close(): Promise<void>;
}

export async function fakeSocket(dir: string): Promise<FakeSocket> {
  let connections = 0;
  const fake = {
    path: path.join(dir, 'admin.sock'),
    received: [] as string[],
    connections: () => connections,
    answers: {} as Record<string, string | null>,
  };
  const answer = (line: string): string | null => {
    const whole = fake.answers[line];
    if (whole !== undefined) return whole;
    if (!line.includes(';')) return 'Unknown command.\n';
    const answers = line.split(';').map((command) => fake.answers[command]);
    if (answers.includes(null)) return null;
    return answers.map((a) => `${a ?? 'Unknown command.\n'}\n`).join('');
  };
  // half-open: a socket that never answers must stay open after our FIN
  const open = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (conn) => {
    connections += 1;
    open.add(conn);
    conn.on('close', () => open.delete(conn));
    let input = '';
    conn.on('data', (d: Buffer) => {
      input += d.toString();
      if (!input.endsWith('\n')) return;
      const command = input.trim();
      fake.received.push(command);
      const text = answer(command);
      if (text === null) return; // never answers
      conn.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(fake.path, resolve));
  return Object.assign(fake, {
    close: () =>
      new Promise<void>((resolve) => {
        for (const conn of open) conn.destroy();
        server.close(() => resolve());
      }),
  });
}

export interface BalancerOnFake {
  /** the temp dir the socket is in, for a test's other files */
  readonly dir: string;
  readonly fake: FakeSocket;
  /** on backend be_app */
  readonly balancer: HaproxyBalancer;
  readonly close: () => Promise<void>;
}

/** An haproxy balancer on a fake socket in a temp dir of its own. */
export async function balancerOnFake(
  options?: RuntimeApiOptions,
  deps?: BalancerDeps,
): Promise<BalancerOnFake> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'handoff-hx-'));
  const fake = await fakeSocket(dir);
  const socket = { kind: 'haproxy', socket: fake.path, backend: 'be_app' } as const;
  const balancer = new HaproxyBalancer(socket, options, deps);
  const close = async (): Promise<void> => {
    await balancer.close();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { dir, fake, balancer, close };
}
