import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHealth, type BackgroundCheck, type Health } from '../../../src/health/index.js';
import { systemClock } from '../../../src/clock.js';
import { runCheck } from '../../../src/host/checks/run.js';
import { get, listen, tempDir } from './support.js';

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

  async function serve(
    checks: BackgroundCheck[] = [],
    release?: string,
    drainAnswer?: 503 | 404,
  ): Promise<string> {
    const h = createHealth({
      stateDir: dir,
      ...(drainAnswer ? { drainAnswer } : {}),
      checks,
      autoStart: true,
      failureThreshold: 1,
      successThreshold: 1,
      drainCacheMs: 0,
      ...(release ? { release } : {}),
    });
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
    await health?.runChecks();
    const ready = await get(`${url}/ready`);
    expect(ready.status).toBe(200);
    const body = JSON.parse(ready.body) as { checks: { latency_ms: number }[] };
    // the check's own time, measured: a busy machine makes it a millisecond or two
    const latency = body.checks[0]?.latency_ms ?? -1;
    expect(latency).toBeGreaterThanOrEqual(0);
    expect(latency).toBeLessThan(1000);
    expect(body).toEqual({
      status: 'ok',
      checks: [{ name: 'db', healthy: true, critical: true, latency_ms: latency, code: 'OK' }],
    });
    expect(ready.headers['content-type']).toBe('application/json');
    expect(ready.headers['cache-control']).toBe('no-store');
    expect(ready.headers['x-handoff-draining']).toBeUndefined();
  });

  it('answers 503 draining with the handshake header while the drain marker exists', async () => {
    const url = await serve();
    await writeFile(path.join(dir, 'draining'), 'rollout');
    const ready = await get(`${url}/ready`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'draining' });
    expect(ready.headers['x-handoff-draining']).toBe('1');
  });

  it('answers a drain with 404 when drain.answer says so, the handshake header unchanged', async () => {
    const url = await serve([], undefined, 404);
    expect((await get(`${url}/ready`)).status).toBe(200);
    await writeFile(path.join(dir, 'draining'), 'rollout');
    const ready = await get(`${url}/ready`);
    expect(ready.status).toBe(404);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'draining' });
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
    await health?.runChecks();
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

  describe("with handoff's own check (x-handoff-verify: 1)", () => {
    const check = (url: string) => ({
      kind: 'http' as const,
      url: `${url}/ready`,
      timeout: 2_000,
      expectStatus: 200,
      expectRelease: true,
    });
    const deps = { clock: systemClock, state: '/nonexistent', service: 'api', release: 'v4' };

    it('answers its real readiness while drained, so a working release passes verify', async () => {
      const url = await serve([{ name: 'db', run: () => true }], 'v4');
      await health?.runChecks();
      await writeFile(path.join(dir, 'draining'), 'rollout');
      expect(await runCheck(check(url), deps)).toMatchObject({ ok: true, release: 'v4' });
      // the balancer, which does not ask that way, still sees the drain
      const balancer = await get(`${url}/ready`);
      expect(balancer.status).toBe(503);
      expect(balancer.headers['x-handoff-draining']).toBe('1');
    });

    it('fails verify of a broken release while drained, before the balancer sees it', async () => {
      const url = await serve([{ name: 'db', run: () => false }], 'v4');
      await health?.runChecks();
      await writeFile(path.join(dir, 'draining'), 'rollout');
      expect(await runCheck(check(url), deps)).toMatchObject({
        ok: false,
        code: 'status-503',
        draining: false,
      });
    });

    it('names its release on every answer, and an old one fails expect_release', async () => {
      const url = await serve([], 'v2');
      expect((await get(`${url}/live`)).headers['x-release']).toBe('v2');
      expect((await get(`${url}/startup`)).headers['x-release']).toBe('v2');
      expect(await runCheck(check(url), deps)).toMatchObject({
        ok: false,
        code: 'release-mismatch',
        detail: 'answers v2, expected v4',
      });
    });
  });

  it('names the release from RELEASE by default, and none when it is unset', async () => {
    const saved = process.env.RELEASE;
    try {
      process.env.RELEASE = 'r7';
      const url = await serve();
      expect((await get(`${url}/live`)).headers['x-release']).toBe('r7');
      health?.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      delete process.env.RELEASE;
      const bare = await serve();
      expect((await get(`${bare}/live`)).headers['x-release']).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.RELEASE;
      else process.env.RELEASE = saved;
    }
  });

  it('refuses, when created, a release that cannot be a header value', () => {
    expect(() => createHealth({ stateDir: dir, release: 'v1\nSet-Cookie: x' })).toThrow(
      /cannot be sent as the x-release header/,
    );
  });
});
