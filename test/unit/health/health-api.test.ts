import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createHealth, type Health, type HealthOptions } from '../../../src/health/index.js';
import { FakeClock } from '../../support/fake-clock.js';
import { get, listen } from './support.js';

describe('createHealth as a whole service sees it', () => {
  let server: http.Server | undefined;
  let health: Health | undefined;
  afterEach(async () => {
    health?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  async function serve(options: HealthOptions): Promise<string> {
    const h = createHealth({ release: 'v7', autoStart: true, ...options });
    health = h;
    server = http.createServer((req, res) => {
      if (h.handles(req)) h.handler(req, res);
      else res.end('app');
    });
    return listen(server);
  }

  it('routes /startup, /live, /ready and /health, and leaves every other path to the app', async () => {
    const url = await serve({});
    expect(JSON.parse((await get(`${url}/startup`)).body)).toEqual({ status: 'started' });
    expect(JSON.parse((await get(`${url}/live`)).body)).toEqual({ status: 'alive', stale: [] });
    expect(JSON.parse((await get(`${url}/ready?x=1`)).body)).toEqual({ status: 'ok', checks: [] });
    expect((await get(`${url}/health`)).headers['x-release']).toBe('v7');
    expect((await get(`${url}/orders`)).body).toBe('app');
  });

  it('answers fifty probes from the stored state without one dependency call, started once however often start() is called', async () => {
    let calls = 0;
    const url = await serve({
      checks: [{ name: 'db', run: () => void (calls += 1) }],
    });
    health?.start({ intervalMs: 60_000 });
    health?.start({ intervalMs: 60_000 });
    expect(calls).toBe(1);
    const answers = await Promise.all(Array.from({ length: 50 }, () => get(`${url}/ready`)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(calls).toBe(1);
  });

  it('by default stays starting until markStarted(), though every check passes: a service that warms up is not ready cold', async () => {
    const url = await serve({ autoStart: undefined, checks: [{ name: 'db', run: () => true }] });
    await health?.round();
    await health?.round();
    expect((await get(`${url}/startup`)).status).toBe(503);
    expect(JSON.parse((await get(`${url}/ready`)).body)).toMatchObject({ status: 'starting' });
    health?.markStarted();
    expect((await get(`${url}/startup`)).status).toBe(200);
    expect((await get(`${url}/ready`)).status).toBe(200);
  });

  it('after markStarted(), still answers starting until every critical check has run once', async () => {
    const url = await serve({ autoStart: undefined, checks: [{ name: 'db', run: () => true }] });
    health?.markStarted();
    expect(JSON.parse((await get(`${url}/ready`)).body)).toMatchObject({ status: 'starting' });
    await health?.round();
    expect((await get(`${url}/ready`)).status).toBe(200);
  });

  it('with autoStart, is started by the first round in which every critical check passes', async () => {
    let up = false;
    const url = await serve({
      autoStart: true,
      failureThreshold: 1,
      successThreshold: 1,
      checks: [{ name: 'db', run: () => up }],
    });
    await health?.round();
    expect((await get(`${url}/startup`)).status).toBe(503);
    up = true;
    await health?.round();
    expect((await get(`${url}/startup`)).status).toBe(200);
  });

  it('takes the old manualStart: true as the default it now is', async () => {
    const url = await serve({ autoStart: undefined, manualStart: true, checks: [] });
    expect((await get(`${url}/startup`)).status).toBe(503);
  });

  it('takes the old manualStart: false as autoStart', async () => {
    const url = await serve({ autoStart: undefined, manualStart: false, checks: [] });
    expect((await get(`${url}/startup`)).status).toBe(200);
  });

  it('answers ready 503 draining after setDraining(true), without a state directory', async () => {
    const url = await serve({ stateDir: undefined });
    health?.setDraining(true);
    const ready = await get(`${url}/ready`);
    expect(ready.status).toBe(503);
    expect(ready.headers['x-handoff-draining']).toBe('1');
    health?.setDraining(false);
    expect((await get(`${url}/ready`)).status).toBe(200);
  });

  it('answers live 503 naming a job loop that stopped beating, while ready stays 200', async () => {
    const clock = new FakeClock();
    const url = await serve({ clock, watchdogs: { jobs: 30_000 } });
    clock.advance(20_000);
    health?.heartbeat('jobs');
    clock.advance(30_001);
    const live = await get(`${url}/live`);
    expect(live.status).toBe(503);
    expect(JSON.parse(live.body)).toEqual({
      status: 'stale',
      stale: [{ name: 'jobs', age_ms: 30_001, limit_ms: 30_000 }],
    });
    expect((await get(`${url}/ready`)).status).toBe(200);
  });

  it('answers 200 degraded for a failing non-critical check, with no word of its error', async () => {
    const url = await serve({
      checks: [
        { name: 'db', run: () => true },
        {
          name: 'cache',
          critical: false,
          run: () => Promise.reject(new Error('redis://:hunter2@cache:6379 refused')),
        },
      ],
    });
    await health?.round();
    const ready = await get(`${url}/ready`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({
      status: 'degraded',
      checks: [{ name: 'db' }, { name: 'cache', healthy: false, critical: false, code: 'ERROR' }],
    });
    expect(ready.body).not.toContain('hunter2');
  });
});
