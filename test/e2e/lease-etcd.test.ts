import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcd, type EtcdCluster } from '../../scripts/lab/etcd.js';
import { checkLease } from '../../src/cli/check/check-lease.js';
import { testConfig } from '../support/config.js';
import { EtcdLeaseStore } from '../../src/rollout/lease/etcd/etcd-store.js';
import { EtcdGateway, b64 } from '../../src/rollout/lease/etcd/gateway.js';
import { etcdLeaseLab } from '../support/etcd-lease-lab.js';
import { leaseAsk, leaseConformance } from '../support/lease-conformance.js';

/**
 * The etcd store against the same contract as the hosts store, on a real
 * etcd (Debian's etcd-server) started here: one member on 127.0.130.1, and a
 * cluster of three on 127.0.131.1–3. The TTL is etcd's shortest (2 s) so an
 * expiry takes seconds; etcd, not the test, decides when a lease is gone.
 */

const TTL_MS = 2_000;
let single: EtcdCluster;
let three: EtcdCluster;
beforeAll(async () => {
  [single, three] = await Promise.all([
    startEtcd({ addresses: ['127.0.130.1'], workDir: '/tmp/handoff-e2e-130' }),
    startEtcd({
      addresses: ['127.0.131.1', '127.0.131.2', '127.0.131.3'],
      workDir: '/tmp/handoff-e2e-131',
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([single?.stop(), three?.stop()]);
});

leaseConformance(
  'etcd, one member',
  etcdLeaseLab(() => ({ endpoints: single.endpoints }), TTL_MS),
);
leaseConformance(
  'etcd, a cluster of three',
  etcdLeaseLab(() => ({ endpoints: three.endpoints }), TTL_MS),
);

describe('the etcd store when etcd itself fails', () => {
  it('an endpoint that does not answer is passed over for the next', async () => {
    const store = new EtcdLeaseStore({
      endpoints: ['http://127.0.130.9:2379', ...single.endpoints],
      prefix: '/failover',
      service: 'api',
      ttlMs: TTL_MS,
    });
    expect(await store.take(leaseAsk('a'))).toMatchObject({ ok: true });
    expect(await store.renew(leaseAsk('a'))).toEqual({ ok: true, unreachable: [] });
    await store.release(leaseAsk('a'));
  });

  it('no endpoint answers: the take is refused (exit 3) naming each, and status says it could not read', async () => {
    const store = new EtcdLeaseStore({
      endpoints: ['http://127.0.130.9:2379'],
      prefix: '/down',
      service: 'api',
    });
    const taking = store.take(leaseAsk('a'));
    await expect(taking).rejects.toMatchObject({ exitCode: 3 });
    await expect(taking).rejects.toThrow(
      /^etcd: no endpoint answered \(http:\/\/127\.0\.130\.9:2379: /,
    );
    const [view] = await store.read();
    expect(view?.unreachable).toMatch(/^etcd: no endpoint answered/);
    store.close();
  });

  it('a cluster that loses a member keeps the lease: its holder renews through the others', async () => {
    const store = new EtcdLeaseStore({
      endpoints: three.endpoints,
      prefix: '/member-lost',
      service: 'api',
      ttlMs: TTL_MS,
    });
    expect(await store.take(leaseAsk('a'))).toMatchObject({ ok: true });
    await three.kill('etcd-1');
    expect(await store.renew(leaseAsk('a'))).toEqual({ ok: true, unreachable: [] });
    const other = new EtcdLeaseStore({
      endpoints: three.endpoints,
      prefix: '/member-lost',
      service: 'api',
    });
    expect(await other.take(leaseAsk('b'))).toMatchObject({
      ok: false,
      holder: { lease: { id: 'a' } },
    });
    await store.release(leaseAsk('a'));
    expect(await other.take(leaseAsk('b'))).toMatchObject({ ok: true });
    await other.release(leaseAsk('b'));
  });
});

describe('deploy check --live and deploy lease break on etcd', () => {
  it('check reaches etcd and names the holder; a break frees it and is kept under breaks/', async () => {
    const lease = {
      store: 'etcd' as const,
      endpoints: single.endpoints,
      prefix: '/checked',
      passwordEnv: 'HANDOFF_ETCD_PASSWORD',
    };
    const options = { endpoints: single.endpoints, prefix: '/checked', service: 'api' };
    const holder = new EtcdLeaseStore(options);
    expect(await holder.take(leaseAsk('a'))).toMatchObject({ ok: true });
    const checked = await checkLease(testConfig({ lease }), true, {});
    expect(checked.json).toMatchObject({ store: 'etcd', key: '/checked/api/lease', held: true });
    expect(checked.lines[1]).toMatch(
      /^fleet lease: held by deploy rollout r7 by alice@laptop pid 43 since .*\(etcd \/checked\/api\/lease\)$/,
    );
    const operator = new EtcdLeaseStore(options);
    await operator.break({ ...leaseAsk('op'), command: 'lease break' });
    expect(await holder.renew(leaseAsk('a'))).toMatchObject({ ok: false });
    const etcd = new EtcdGateway(options);
    const kept = await etcd.call<{ kvs?: { value: string }[] }>('kv/range', {
      key: b64('/checked/api/breaks/'),
      range_end: b64('/checked/api/breaks0'),
    });
    expect(
      kept.kvs?.map((kv) => JSON.parse(Buffer.from(kv.value, 'base64').toString()) as unknown),
    ).toEqual([
      expect.objectContaining({
        command: 'lease break',
        broke: [expect.objectContaining({ id: 'a' })],
      }),
    ]);
    for (const c of [holder, operator, etcd]) c.close();
  });
});
