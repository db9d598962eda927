import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, hostFixture } from '../../support/host-fixture.js';
import { startSession } from '../../support/memory-io.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((r) => s.close(r));
    }),
  );
});

/** A service's port that records what asked it, and answers as told (or never). */
async function service(port: number, answer: boolean): Promise<IncomingMessage[]> {
  const asked: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    asked.push(req);
    if (answer) res.writeHead(503, { 'x-handoff-draining': '1' }).end('draining');
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return asked;
}

async function lockedSession(moreServices = '') {
  const host = await hostFixture('', { moreServices });
  const { m, holding } = startSession(host.config, { what: 'rollout', message: 'release r2' });
  let id = 0;
  const send = (op: string, args: Record<string, unknown> = {}) =>
    m.write(JSON.stringify({ call: { id: ++id, op, args } }));
  await expect.poll(() => m.lines.some((l) => l.type === 'locked')).toBe(true);
  return { host, m, holding, send };
}

const drain = { by: 'rollout r2 by ci', leaseMs: 600_000, release: 'r2' };

describe('the session warms the HTTP checks once the host is drained', () => {
  it('asks each HTTP check once, as verify would, before any verify call', async () => {
    const s = await lockedSession();
    const asked = await service(s.host.port, true);
    s.send('drain', drain);
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]?.url).toBe('/health');
    expect(asked[0]?.headers['x-handoff-verify']).toBe('1');
    // nobody reads its answer: no line says anything of it
    expect(s.m.lines.filter((l) => l.type === 'reply')).toHaveLength(1);
    s.m.write('release');
    expect(await s.holding).toBe(0);
    expect(asked).toHaveLength(1);
  });

  it('asks nothing when the drain is refused', async () => {
    const s = await lockedSession();
    const asked = await service(s.host.port, true);
    // without its lease the drain is refused before anything changes
    s.send('drain', { by: 'rollout r2 by ci' });
    await expect.poll(() => s.m.lines.some((l) => l.type === 'reply' && !l.ok)).toBe(true);
    s.send('heartbeat');
    await expect.poll(() => s.m.lines.filter((l) => l.type === 'reply')).toHaveLength(2);
    s.m.write('release');
    expect(await s.holding).toBe(0);
    expect(asked).toHaveLength(0);
  });

  it('ends with the session: a check that never answers does not hold the lock', async () => {
    const port = await freePort();
    const s = await lockedSession(`
  - name: slow
    check: { http: "http://127.0.0.1:${port}/health", timeout: 60s }
    start: 'true'
    stop: 'true'
    status: 'true'`);
    await service(s.host.port, true);
    const hanging = await service(port, false);
    s.send('drain', drain);
    await expect.poll(() => hanging.length).toBe(1);
    // the session ends now, not when the 60 s check would give up (the test's timeout is 5 s)
    s.m.write('release');
    expect(await s.holding).toBe(0);
    await expect.poll(() => hanging[0]?.socket.destroyed).toBe(true);
  });
});
