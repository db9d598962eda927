import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startLoad } from '../../scripts/lab/index.js';

describe('the lab load generator', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  async function serve(handler: http.RequestListener): Promise<string> {
    server = http.createServer(handler);
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  it('counts 2xx answers by the host and release in their JSON body', async () => {
    let n = 0;
    const url = await serve((_req, res) => {
      res.end(JSON.stringify({ host: n++ % 2 ? 'web-1' : 'web-2', release: 'r7' }));
    });
    const report = await startLoad({ url, concurrency: 2, maxRequests: 20, pauseMs: 0 }).done;
    expect(report).toMatchObject({ total: 20, ok: 20, failed: 0, releases: { r7: 20 } });
    expect(report.hosts).toEqual({ 'web-1': 10, 'web-2': 10 });
  });

  it('counts every non-2xx answer by its status code', async () => {
    let n = 0;
    const url = await serve((_req, res) => {
      res.statusCode = n++ % 2 ? 502 : 503;
      res.end();
    });
    const report = await startLoad({ url, concurrency: 1, maxRequests: 10, pauseMs: 0 }).done;
    expect(report).toMatchObject({
      total: 10,
      ok: 0,
      failed: 10,
      statuses: { '502': 5, '503': 5 },
    });
  });

  it('counts a request that gets no answer by its socket error code', async () => {
    const url = await serve((req) => req.socket.destroy());
    const report = await startLoad({ url, concurrency: 2, maxRequests: 6, pauseMs: 0 }).done;
    expect(report).toMatchObject({ total: 6, failed: 6, errors: { ECONNRESET: 6 } });
  });

  it('counts a refused connection', async () => {
    const url = await serve((_req, res) => res.end());
    await new Promise((r) => server?.close(r));
    const report = await startLoad({ url, concurrency: 1, maxRequests: 3, pauseMs: 0 }).done;
    expect(report.errors).toEqual({ ECONNREFUSED: 3 });
  });

  it('stops by itself when its time is up, with nobody calling stop', async () => {
    const url = await serve((_req, res) => res.end('{}'));
    const report = await startLoad({ url, concurrency: 2, maxDurationMs: 300 }).done;
    expect(report.total).toBeGreaterThan(0);
    expect(report.durationMs).toBeLessThan(2000);
  });

  it('waits for the requests in flight when stopped', async () => {
    const url = await serve((_req, res) => setTimeout(() => res.end('{}'), 100));
    const load = startLoad({ url, concurrency: 3 });
    await new Promise((r) => setTimeout(r, 50));
    const report = await load.stop();
    expect(report).toMatchObject({ total: 3, ok: 3 });
  });
});
