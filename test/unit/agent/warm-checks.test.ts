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

describe('the session warms the HTTP checks when the warm step asks', () => {
  it('asks each HTTP check once, as verify would, and answers once it has; a drain alone asks nothing', async () => {
    const s = await lockedSession();
    const asked = await service(s.host.port, true);
    s.send('drain', drain);
    s.send('warm');
    const warmed = () => s.m.lines.find((l) => l.type === 'reply' && l.id === 2);
    await expect.poll(warmed, { timeout: 4_000 }).toMatchObject({ ok: true, data: {} });
    // the drain's own answer came first, and asked nothing: only the warm call did
    expect(asked).toHaveLength(1);
    expect(asked[0]?.url).toBe('/health');
    expect(asked[0]?.headers['x-handoff-verify']).toBe('1');
    s.m.write('release');
    expect(await s.holding).toBe(0);
    expect(asked).toHaveLength(1);
  });

  it('is refused before the lock, as every call that needs it', async () => {
    const host = await hostFixture('');
    const { m, holding } = startSession(host.config, { defer: true });
    const asked = await service(host.port, true);
    await expect.poll(() => m.lines.some((l) => l.type === 'ready')).toBe(true);
    m.write(JSON.stringify({ call: { id: 1, op: 'warm', args: {} } }));
    await expect
      .poll(() => m.lines.find((l) => l.type === 'reply'))
      .toMatchObject({
        ok: false,
        error: { message: 'warm needs the host lock: send a lock call first' },
      });
    m.write('release');
    expect(await holding).toBe(0);
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
    s.send('warm');
    await expect.poll(() => hanging.length, { timeout: 4_000 }).toBe(1);
    // the session ends now, not when the 60 s check would give up (the test's timeout is 5 s)
    s.m.write('release');
    expect(await s.holding).toBe(0);
    await expect.poll(() => hanging[0]?.socket.destroyed).toBe(true);
  });
});
