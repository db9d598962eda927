import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/clock.js';
import { runCheck } from '../../../../src/host/checks/run.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function listen(): Promise<number> {
  const server = createServer((socket) => socket.end());
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

const deps = { clock: systemClock, state: '/nonexistent', service: 'db' };
const check = (port: number) => ({ kind: 'tcp' as const, host: '127.0.0.1', port, timeout: 1_000 });

describe('the tcp check', () => {
  it('passes when the port accepts a connection', async () => {
    expect(await runCheck(check(await listen()), deps)).toMatchObject({ ok: true, code: 'ok' });
  });

  it('reports a closed port as refused', async () => {
    const port = await listen();
    const server = servers.pop();
    await new Promise((r) => server?.close(r));
    expect(await runCheck(check(port), deps)).toMatchObject({ ok: false, code: 'refused' });
  });

  it('reports an impossible port without throwing', async () => {
    expect(await runCheck(check(70_000), deps)).toMatchObject({ ok: false, code: 'error' });
  });
});
