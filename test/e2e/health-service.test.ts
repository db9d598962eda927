import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { healthBundlePath } from '../../scripts/build.js';
import { get, waitFor } from '../unit/health/support.js';

/** A dependency stand-in: answers, hangs (accepts, never replies) or refuses. */
class StandIn {
  mode: 'ok' | 'hang' = 'ok';
  calls = 0;
  private server = net.createServer((s) => {
    this.calls += 1;
    s.on('data', () => (this.mode === 'ok' ? s.end('pong\n') : undefined));
    s.on('error', () => undefined);
  });
  port = 0;
  async listen(): Promise<void> {
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }
  async refuse(): Promise<void> {
    await new Promise((r) => this.server.close(r));
  }
}

let service: ChildProcess;
let url: string;
let db: StandIn;
let cache: StandIn;

async function startService(env: Record<string, string> = {}): Promise<void> {
  service = spawn(process.execPath, ['test/support/services/health-service.mjs'], {
    env: {
      ...process.env,
      HEALTH_LIB: healthBundlePath,
      // no drain delay unless a test exports the detection time, as the runtime would
      HANDOFF_DETECT_TIME: '',
      HANDOFF_STOP_TIMEOUT: '',
      DB_PORT: String(db.port),
      CACHE_PORT: String(cache.port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: service.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  url = `http://127.0.0.1:${line.split(' ')[1]}`;
}

const ready = async () => {
  const a = await get(`${url}/ready`);
  return {
    code: a.status,
    ...(JSON.parse(a.body) as {
      status: string;
      checks: { name: string; healthy: boolean; code: string }[];
    }),
    body: a.body,
  };
};
const check = (r: Awaited<ReturnType<typeof ready>>, name: string) =>
  r.checks.find((c) => c.name === name);

beforeEach(async () => {
  db = new StandIn();
  cache = new StandIn();
  await Promise.all([db.listen(), cache.listen()]);
});
afterEach(async () => {
  if (service.exitCode === null && service.signalCode === null) {
    service.kill('SIGKILL');
    await once(service, 'exit');
  }
  await Promise.all([db.refuse().catch(() => undefined), cache.refuse().catch(() => undefined)]);
});

describe('a real service using the health library, over HTTP', () => {
  it('warming up: startup 503, live 200, ready 503 starting; started: 200 ok', async () => {
    await startService();
    expect((await get(`${url}/startup`)).status).toBe(503);
    expect((await get(`${url}/live`)).status).toBe(200);
    expect(await ready()).toMatchObject({ code: 503, status: 'starting' });
    await get(`${url}/control/warm`);
    await waitFor(async () => (await ready()).status === 'ok');
    expect((await get(`${url}/startup`)).status).toBe(200);
  });

  it('cache (non-critical) down: 200 degraded, and no secret from the error in the body', async () => {
    await startService();
    await get(`${url}/control/warm`);
    await waitFor(async () => (await ready()).status === 'ok');
    await cache.refuse();
    await waitFor(async () => (await ready()).status === 'degraded');
    const r = await ready();
    expect(r.code).toBe(200);
    expect(check(r, 'cache')).toMatchObject({ healthy: false, code: 'ECONNREFUSED' });
    expect(r.body).not.toMatch(/s3cret|redis|127\.0\.0\.1/);
  });

  it('critical dependency hanging: 503 failing only after failureThreshold rounds, live 200, back only after successThreshold', async () => {
    await startService();
    await get(`${url}/control/warm`);
    await waitFor(async () => (await ready()).status === 'ok');
    db.mode = 'hang';
    // a round already failed (TIMEOUT), yet the check still counts as passing
    await waitFor(async () => {
      const r = await ready();
      return r.status === 'ok' && check(r, 'db')?.code === 'TIMEOUT';
    });
    await waitFor(async () => (await ready()).status === 'failing');
    expect((await ready()).code).toBe(503);
    expect((await get(`${url}/live`)).status).toBe(200);
    db.mode = 'ok';
    // a round already passed, yet it still counts as failing
    await waitFor(async () => {
      const r = await ready();
      return r.status === 'failing' && check(r, 'db')?.code === 'OK';
    });
    await waitFor(async () => (await ready()).status === 'ok');
  });

  it('critical dependency black-holed, its client with no timeout that ignores the signal: ok again successThreshold rounds after it answers', async () => {
    await startService({ DB_CLIENT: 'bare' });
    await get(`${url}/control/warm`);
    await waitFor(async () => (await ready()).status === 'ok');
    db.mode = 'hang';
    await waitFor(async () => (await ready()).status === 'failing');
    // the calls made while it hung never settle: counted, and no later round waits for them
    expect(check(await ready(), 'db')).toMatchObject({ code: 'TIMEOUT' });
    expect((check(await ready(), 'db') as { abandoned?: number }).abandoned).toBeGreaterThan(0);
    db.mode = 'ok';
    await waitFor(async () => (await ready()).status === 'ok');
  });

  it('event loop blocked 600 ms: 503 overloaded, then 200 once the window has passed', async () => {
    await startService();
    await get(`${url}/control/warm`);
    await waitFor(async () => (await ready()).status === 'ok');
    await get(`${url}/control/block?ms=600`);
    expect(await ready()).toMatchObject({ code: 503, status: 'overloaded' });
    await waitFor(async () => (await ready()).status === 'ok', 5000);
  });

  it('job loop stuck: live 503 naming it, ready 200', async () => {
    await startService();
    await get(`${url}/control/warm`);
    await waitFor(async () => (await ready()).status === 'ok');
    await get(`${url}/control/stick`);
    await waitFor(async () => (await get(`${url}/live`)).status === 503);
    expect(JSON.parse((await get(`${url}/live`)).body)).toMatchObject({
      status: 'stale',
      stale: [{ name: 'jobs', limit_ms: 1000 }],
    });
    expect((await ready()).code).toBe(200);
  });

  it('SIGTERM: ready 503 draining while requests are still served for the detection time, then a clean exit', async () => {
    // no drainDelayMs: the delay is the library's default, the balancer's detection time
    // that the runtime exports (2 s here, well within stop timeout minus graceMs)
    await startService({ HANDOFF_DETECT_TIME: '2', HANDOFF_STOP_TIMEOUT: '30' });
    await get(`${url}/control/warm`);
    await waitFor(async () => (await ready()).status === 'ok');
    const exited = once(service, 'exit');
    const signalledAt = performance.now();
    service.kill('SIGTERM');
    let answer: Awaited<ReturnType<typeof ready>> | undefined;
    await waitFor(async () => (answer = await ready()).status === 'draining');
    expect(answer?.code).toBe(503);
    expect((await get(`${url}/orders`)).body).toBe('hello');
    expect(await exited).toEqual([0, null]);
    expect(performance.now() - signalledAt).toBeGreaterThanOrEqual(2000);
  });
});
