import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../../src/errors.js';
import { EtcdGateway } from '../../../../src/rollout/lease/etcd/gateway.js';

/**
 * What a real etcd 3.4 serving TLS does with a plain HTTP request on its
 * client port: it closes the connection without answering (curl: "Empty reply
 * from server"; node: ECONNRESET "socket hang up"). This server does the same.
 */
let server: net.Server | undefined;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

async function closingServer(): Promise<string> {
  server = net.createServer((socket) => socket.once('data', () => socket.destroy()));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return `http://127.0.0.1:${port}`;
}

describe('the etcd gateway', () => {
  it('an http:// endpoint at an etcd serving TLS: one line saying to write https://, exit 2', async () => {
    const endpoint = await closingServer();
    const gateway = new EtcdGateway({ endpoints: [endpoint], timeoutMs: 2_000 });
    const failure = await gateway.call('kv/range', { key: 'eA==' }).catch((e: unknown) => e);
    gateway.close();
    expect(failure).toBeInstanceOf(UsageError);
    expect((failure as Error).message).toBe(
      `etcd: ${endpoint}: closed the connection on a plain http:// request without answering, as an etcd serving TLS does: write https:// in lease.endpoints`,
    );
  });
});
