import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TargetState } from '../../src/balancer/balancer.js';
import { HaproxyBalancer } from '../../src/balancer/haproxy/adapter.js';
import type { HaproxyBalancerConfig } from '../../src/balancer/haproxy/config/entry.js';
import { BlockedError, ConfigError } from '../../src/errors.js';
import { startHaproxy, type RunningHaproxy } from '../support/haproxy.js';

const inter = 200;
const fall = 3;
const rise = 2;
const timeoutCheck = 150;

/** A little app whose /health answers whatever status the test sets. */
interface App {
  readonly name: string;
  readonly address: string;
  health: number;
  close(): Promise<void>;
}

async function startApp(name: string): Promise<App> {
  const app: { health: number } = { health: 200 };
  const server = http.createServer((req, res) => {
    res.statusCode = req.url === '/health' ? app.health : 200;
    res.end(req.url === '/health' && app.health !== 200 ? 'draining' : 'ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(app, {
    name,
    address: `127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Polls until the probe holds, or returns what it last saw. */
async function until<T>(probe: () => Promise<T>, holds: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let last = await probe();
  while (!holds(last) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    last = await probe();
  }
  return last;
}

describe('the haproxy balancer against a real haproxy', () => {
  let apps: App[];
  let haproxy: RunningHaproxy;
  let config: HaproxyBalancerConfig;
  let balancer: HaproxyBalancer;
  const state = async (target: string): Promise<TargetState | undefined> =>
    (await balancer.states([target])).get(target);

  beforeAll(async () => {
    apps = await Promise.all(['web-1', 'web-2'].map(startApp));
    haproxy = await startHaproxy({
      servers: apps,
      inter,
      fall,
      rise,
      timeoutCheck,
      tcpSocket: true,
    });
    config = { kind: 'haproxy', socket: haproxy.socket, backend: haproxy.backend };
    balancer = new HaproxyBalancer(config);
  });
  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all(apps?.map((a) => a.close()) ?? []);
  });
  beforeEach(async () => {
    for (const app of apps) app.health = 200;
    for (const app of apps) await balancer.register(app.name);
    const all = await until(
      () => balancer.states(['web-1', 'web-2']),
      (m) => [...m.values()].every((s) => s.inRotation === true && !s.reason),
      5_000,
    );
    expect([...all.values()].map((s) => s.state)).toEqual(['healthy', 'healthy']);
  });

  it('takes a server whose health answers 503 out of rotation within inter × fall', async () => {
    const web1 = apps[0]!;
    const started = Date.now();
    web1.health = 503;
    const out = await until(
      () => state('web-1'),
      (s) => s?.inRotation === false,
      5_000,
    );
    const elapsed = Date.now() - started;
    expect(out).toMatchObject({ state: 'unhealthy', inRotation: false });
    expect(out?.reason).toMatch(/^DOWN: L7STS 503/);
    // the first failing check can start up to one inter after the flip
    expect(elapsed).toBeLessThan(inter * (fall + 1) + 1000);
    expect(await state('web-2')).toMatchObject({ state: 'healthy', inRotation: true });
  });

  it('puts a server whose health recovers back in rotation within inter × rise', async () => {
    const web1 = apps[0]!;
    web1.health = 503;
    await until(
      () => state('web-1'),
      (s) => s?.inRotation === false,
      5_000,
    );
    const started = Date.now();
    web1.health = 200;
    const back = await until(
      () => state('web-1'),
      (s) => s?.inRotation === true,
      5_000,
    );
    expect(back).toMatchObject({ state: 'healthy', inRotation: true });
    expect(Date.now() - started).toBeLessThan(inter * (rise + 1) + 1000);
  });

  it('reports a server that is failing but not yet down as in rotation, with the count', async () => {
    apps[1]!.health = 503;
    const failing = await until(
      () => state('web-2'),
      (s) => s?.reason !== undefined,
      5_000,
    );
    expect(failing).toMatchObject({ state: 'healthy', inRotation: true });
    expect(failing?.reason).toMatch(/^failing checks \(UP \d\/\d\)/);
  });

  it('reads back the check settings of the running haproxy and its config file', async () => {
    const withFile = new HaproxyBalancer({ ...config, config: haproxy.configPath });
    expect(await withFile.settings()).toEqual({
      interval: inter,
      timeout: timeoutCheck,
      unhealthyThreshold: fall,
      healthyThreshold: rise,
      // the backend has no http-check disable-on-404: a 404 answer would be a failed check
      disableOn404: false,
    });
  });

  it('takes a drained server out of rotation at once and brings it back with ready', async () => {
    await balancer.deregister('web-2');
    expect(await state('web-2')).toMatchObject({ state: 'draining', inRotation: false });
    await balancer.register('web-2');
    expect(await state('web-2')).toMatchObject({ state: 'healthy', inRotation: true });
  });

  it('answers the same through the tcp:// form of the socket', async () => {
    const overTcp = new HaproxyBalancer({ ...config, socket: haproxy.tcpSocket! });
    await overTcp.deregister('web-1');
    expect(await state('web-1')).toMatchObject({ inRotation: false });
    expect((await overTcp.states(['web-1'])).get('web-1')).toMatchObject({ state: 'draining' });
  });

  it('reports a server name that is not in the backend as unused', async () => {
    expect(await state('web-9')).toEqual({
      target: 'web-9',
      state: 'unused',
      inRotation: false,
      reason: `not in backend ${haproxy.backend}`,
    });
  });

  it('names the backends there are when the configured one does not exist', async () => {
    const wrong = new HaproxyBalancer({ ...config, backend: 'be_typo' });
    const error = await wrong.states(['web-1']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `balancer.backend: haproxy has no backend be_typo (it has: ${haproxy.backend})`,
    );
  });

  it('fails with one line naming a socket that does not exist', async () => {
    const missing = `${haproxy.socket}.missing`;
    const error = await new HaproxyBalancer({ ...config, socket: missing })
      .states(['web-1'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlockedError);
    expect((error as Error).message).toContain(`haproxy socket ${missing} does not exist`);
    expect((error as Error).message).not.toContain('\n');
  });
});
