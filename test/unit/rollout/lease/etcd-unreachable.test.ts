import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EtcdLeaseStore } from '../../../../src/rollout/lease/etcd/etcd-store.js';
import { LEASE_RENEW_MS, LEASE_TTL_MS } from '../../../../src/protocol/lease.js';
import { leaseAsk } from '../../../support/lease-conformance.js';

/**
 * The few calls of etcd's v3 JSON gateway a take and a renewal make, answered
 * as etcd answers them (one lease, ID 7, that the key is put under); then
 * closed, as a partition would leave the orchestrator: the bound at which an
 * unrenewable lease is said lost is the store's own, by its injected clock.
 */
let server: http.Server | undefined;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

async function gateway(): Promise<string> {
  let value = '';
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += String(c)));
    req.on('end', () => {
      const ask = JSON.parse(body || '{}') as Record<string, unknown>;
      const answers: Record<string, unknown> = {
        '/v3/lease/grant': { ID: '7', TTL: String(LEASE_TTL_MS / 1000) },
        '/v3/kv/txn': { succeeded: true },
        '/v3/lease/keepalive': { result: { ID: '7', TTL: String(LEASE_TTL_MS / 1000) } },
        '/v3/kv/range': { kvs: [{ key: ask.key, value, lease: '7', mod_revision: '2' }] },
        '/v3/lease/revoke': {},
      };
      if (req.url === '/v3/kv/txn') {
        const put = (ask.success as { request_put?: { value: string } }[] | undefined)?.[0];
        value = put?.request_put?.value ?? value;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answers[req.url ?? ''] ?? {}));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

describe('the etcd store when etcd stops answering (a partition)', () => {
  it('renews through the gap, and says the lease lost at the first renewal less than one renewal before etcd could expire it', async () => {
    let now = 0;
    const endpoint = await gateway();
    const store = new EtcdLeaseStore({
      endpoints: [endpoint],
      prefix: '/p',
      service: 'api',
      timeoutMs: 1_000,
      now: () => now,
    });
    expect(await store.take(leaseAsk('a'))).toMatchObject({ ok: true });
    now = LEASE_RENEW_MS;
    expect(await store.renew(leaseAsk('a'))).toEqual({ ok: true, unreachable: [] });
    // the partition: etcd's TTL now runs from the keep-alive it saw at LEASE_RENEW_MS
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = undefined;
    const expiresAt = LEASE_RENEW_MS + LEASE_TTL_MS;
    now = expiresAt - LEASE_RENEW_MS - 1;
    const gap = await store.renew(leaseAsk('a'));
    expect(gap).toMatchObject({ ok: true });
    expect(gap.ok && gap.unreachable[0]).toMatch(/^etcd .*\(.+\)$/);
    // one more renewal period and etcd may have dropped it: lost, said now
    now = expiresAt - LEASE_RENEW_MS;
    const lost = await store.renew(leaseAsk('a'));
    expect(lost).toMatchObject({ ok: false });
    expect(!lost.ok && lost.where).toMatch(/\(unreachable: .+\)$/);
    store.close();
  });
});
