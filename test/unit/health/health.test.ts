import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHealth, type BackgroundCheck, type Health } from '../../../src/health/index.js';
import { get, listen, tempDir, waitFor } from './support.js';

describe('createHealth', () => {
  let dir: string;
  let remove: () => Promise<void>;
  let server: http.Server;
  let health: Health | undefined;
  beforeEach(async () => ({ dir, remove } = await tempDir()));
  afterEach(async () => {
    health?.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await remove();
  });

  async function serve(checks: BackgroundCheck[] = []): Promise<string> {
    const h = createHealth({ stateDir: dir, checks, checkEveryMs: 20, drainCacheMs: 0 });
    health = h;
    server = http.createServer((req, res) => {
      if (req.url === '/startup') h.startup(req, res);
      else if (req.url === '/live') h.live(req, res);
      else h.ready(req, res);
    });
    return listen(server);
  }

  it('answers ready 200 when every background check passes', async () => {
    const url = await serve([{ name: 'db', run: () => true }]);
    await waitFor(() => health?.checksPass() === true);
    const ready = await get(`${url}/ready`);
    expect(ready.status).toBe(200);
    expect(ready.headers['x-handoff-draining']).toBeUndefined();
  });

  it('answers 503 draining with the handshake header while the drain marker exists', async () => {
    const url = await serve();
    await writeFile(path.join(dir, 'draining'), 'rollout');
    const ready = await get(`${url}/ready`);
    expect(ready.status).toBe(503);
    expect(ready.body.trim()).toBe('draining');
    expect(ready.headers['x-handoff-draining']).toBe('1');
  });

  it('keeps answering live 200 while draining, so nothing restarts a draining service', async () => {
    const url = await serve();
    await writeFile(path.join(dir, 'draining'), 'rollout');
    expect((await get(`${url}/live`)).status).toBe(200);
  });

  it('answers startup and ready 503 until a failing check passes', async () => {
    let up = false;
    const url = await serve([{ name: 'cache', run: () => up }]);
    await health?.runChecks();
    expect((await get(`${url}/startup`)).status).toBe(503);
    const notReady = await get(`${url}/ready`);
    expect(notReady.status).toBe(503);
    expect(notReady.body).not.toContain('draining');
    up = true;
    await waitFor(() => health?.checksPass() === true);
    expect((await get(`${url}/startup`)).status).toBe(200);
    expect((await get(`${url}/ready`)).status).toBe(200);
  });

  it('counts a check that throws as failing', async () => {
    const url = await serve([
      {
        name: 'queue',
        run: () => {
          throw new Error('down');
        },
      },
    ]);
    await health?.runChecks();
    expect((await get(`${url}/ready`)).status).toBe(503);
  });
});
