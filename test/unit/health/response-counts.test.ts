import { readdir } from 'node:fs/promises';
import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  countResponses,
  DRAINING_HEADER,
  type ResponseCounter,
} from '../../../src/health/index.js';
import { readServiceCounts, serviceWindow } from '../../../src/evidence/service-counts.js';
import { get, listen, tempDir, waitFor } from './support.js';

describe('countResponses', () => {
  let dir: string;
  let remove: () => Promise<void>;
  let server: http.Server | undefined;
  let counter: ResponseCounter | undefined;
  beforeEach(async () => ({ dir, remove } = await tempDir()));
  afterEach(async () => {
    counter?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
    await remove();
  });

  async function serve(c: ResponseCounter): Promise<string> {
    counter = c;
    server = http.createServer(
      c.wrap((req, res) => {
        if (req.url === '/fail') res.statusCode = 500;
        if (req.url === '/missing') res.statusCode = 404;
        if (req.url === '/draining') {
          res.statusCode = 503;
          res.setHeader(DRAINING_HEADER, '1');
        }
        res.end('x');
      }),
    );
    return listen(server);
  }

  it('counts answers by status class, a draining 503 and skipped paths left out', async () => {
    const url = await serve(
      countResponses({ stateDir: dir, intervalMs: 20, skip: (req) => req.url === '/health' }),
    );
    for (const p of ['/', '/', '/fail', '/missing', '/draining', '/health']) await get(url + p);
    await waitFor(() => counter?.counts().requests === 4);
    const c = counter?.counts();
    expect(c?.classes).toEqual([0, 2, 0, 1, 1]);
    expect(c?.pid).toBe(process.pid);
  });

  it("writes the counts under host.state, where the agent's reader finds them", async () => {
    const url = await serve(countResponses({ stateDir: dir, intervalMs: 20 }));
    const before = await readServiceCounts(dir);
    for (const p of ['/', '/fail', '/fail']) await get(url + p);
    await waitFor(async () => {
      const r = await readServiceCounts(dir);
      return Object.values(r.processes).some((f) => f.requests === 3);
    });
    const window = serviceWindow(before, await readServiceCounts(dir), 'web-1');
    expect(window).toMatchObject({
      kind: 'counted',
      counts: { requests: 3, failed: 2, kinds: { http_5xx: 2 } },
    });
    expect((await readdir(`${dir}/responses`)).every((n) => n.endsWith('.json'))).toBe(true);
  });

  it('works as connect middleware too', async () => {
    const c = countResponses();
    counter = c;
    server = http.createServer((req, res) => c.middleware(req, res, () => res.end('ok')));
    await get(await listen(server));
    await waitFor(() => c.counts().requests === 1);
    expect(c.counts().classes[1]).toBe(1);
  });

  it('keeps counting in memory only, writing nothing, when there is no state directory', () => {
    vi.stubEnv('HANDOFF_STATE', '');
    const exitHooks = process.listenerCount('exit');
    const c = countResponses();
    expect(process.listenerCount('exit')).toBe(exitHooks);
    c.close();
    vi.unstubAllEnvs();
    expect(c.counts().requests).toBe(0);
  });
});
