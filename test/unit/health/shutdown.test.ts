import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHealth,
  gracefulShutdown,
  type GracefulShutdown,
} from '../../../src/health/index.js';
import { get, listen, waitFor } from './support.js';

describe('gracefulShutdown', () => {
  let handle: GracefulShutdown | undefined;
  let server: http.Server;
  afterEach(() => {
    handle?.dispose();
    server.closeAllConnections();
    server.close();
  });

  let slowArrived = false;
  function slowServer(release: Promise<void>): http.Server {
    slowArrived = false;
    return http.createServer((req, res) => {
      if (req.url === '/slow') {
        slowArrived = true;
        void release.then(() => res.end('slow done'));
      } else res.end('fast');
    });
  }

  it('finishes the request in flight, closes idle keep-alive sockets, refuses new ones, then exits 0', async () => {
    let finish!: () => void;
    server = slowServer(new Promise<void>((r) => (finish = r)));
    server.keepAliveTimeout = 65_000;
    const url = await listen(server);
    const codes: number[] = [];
    handle = gracefulShutdown(server, { signals: [], exit: (c) => codes.push(c) });

    const idleAgent = new http.Agent({ keepAlive: true });
    expect((await get(`${url}/`, idleAgent)).body).toBe('fast');
    let idleClosed = false;
    for (const sockets of Object.values(idleAgent.freeSockets))
      for (const s of sockets ?? []) s.on('close', () => (idleClosed = true));

    const inFlight = get(`${url}/slow`);
    await waitFor(() => slowArrived);
    const done = handle.shutdown();

    await waitFor(() => idleClosed);
    await expect(get(`${url}/`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(codes).toEqual([]);
    finish();
    expect((await inFlight).body).toBe('slow done');
    await done;
    expect(codes).toEqual([0]);
    idleAgent.destroy();
  });

  it('cuts what is still open when the grace runs out and exits 1', async () => {
    server = slowServer(new Promise<void>(() => undefined));
    const url = await listen(server);
    const codes: number[] = [];
    handle = gracefulShutdown(server, { signals: [], graceMs: 50, exit: (c) => codes.push(c) });
    const stuck = get(`${url}/slow`).catch((e: NodeJS.ErrnoException) => e.code);
    await waitFor(() => slowArrived);
    await handle.shutdown();
    expect(codes).toEqual([1]);
    expect(await stuck).toBe('ECONNRESET');
  });

  it('starts the shutdown on the configured signal', async () => {
    server = slowServer(Promise.resolve());
    await listen(server);
    const codes: number[] = [];
    handle = gracefulShutdown(server, { signals: ['SIGUSR2'], exit: (c) => codes.push(c) });
    process.emit('SIGUSR2', 'SIGUSR2');
    await waitFor(() => codes.length === 1);
    expect(codes).toEqual([0]);
    expect(server.listening).toBe(false);
  });

  it('on SIGTERM outside a deploy, answers ready 503 draining and keeps serving for the delay before closing', async () => {
    const health = createHealth({ release: 'v1', autoStart: true });
    server = http.createServer((req, res) =>
      health.handles(req) ? health.handler(req, res) : res.end('fast'),
    );
    const url = await listen(server);
    let delayOver!: () => void;
    const delays: number[] = [];
    const clock = {
      now: () => Date.now(),
      sleep: (ms: number) => {
        delays.push(ms);
        return new Promise<void>((r) => (delayOver = r));
      },
    };
    const codes: number[] = [];
    handle = gracefulShutdown(server, {
      signals: [],
      health,
      drainDelayMs: 10_000,
      clock,
      exit: (c) => codes.push(c),
    });
    const done = handle.shutdown();
    await waitFor(() => delays.length === 1);
    expect(delays).toEqual([10_000]);
    const ready = await get(`${url}/ready`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'draining' });
    expect((await get(`${url}/orders`)).body).toBe('fast');
    expect(server.listening).toBe(true);
    delayOver();
    await done;
    expect(codes).toEqual([0]);
    expect(server.listening).toBe(false);
  });
});
