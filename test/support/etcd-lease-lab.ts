import { until } from '../../scripts/lab/procs.js';
import { LEASE_VERSION, type LeaseRequest } from '../../src/protocol/lease.js';
import { EtcdLeaseStore, type EtcdStoreOptions } from '../../src/rollout/lease/etcd/etcd-store.js';
import { EtcdGateway, b64 } from '../../src/rollout/lease/etcd/gateway.js';
import type { LeaseLab } from './lease-conformance.js';

/** how a lab reaches its etcd: endpoints, and TLS and auth when it has them */
export type EtcdReach = Omit<EtcdStoreOptions, 'prefix' | 'service' | 'ttlMs'>;

let labs = 0;

/**
 * The lease conformance suite's lab on a real etcd: each test its own
 * prefix (nothing one leaves behind is seen by the next), an expiry that
 * waits for etcd's TTL to remove the key (etcd, not the test, decides), and
 * values planted through the gateway with the same TLS and auth.
 */
export function etcdLeaseLab(
  reach: () => EtcdReach | Promise<EtcdReach>,
  ttlMs: number,
): () => Promise<LeaseLab> {
  return async () => {
    const prefix = `/contract-${++labs}`;
    const options = { ...(await reach()), prefix, service: 'api', ttlMs };
    const probe = new EtcdLeaseStore(options);
    const etcd = new EtcdGateway(options);
    const put = async (text: string, lease?: string) => {
      await etcd.call('kv/put', {
        key: b64(probe.key),
        value: b64(text),
        ...(lease ? { lease } : {}),
      });
    };
    return {
      store: () => new EtcdLeaseStore(options),
      expire: async () => {
        const gone = await until(
          async () => (await probe.read()).every((v) => v.lease === undefined),
          ttlMs * 5,
        );
        if (!gone) throw new Error(`etcd kept ${probe.key} past 5 TTLs`);
      },
      plant: (text) => put(text),
      plantAhead: async (request: LeaseRequest, aheadMs: number) => {
        const at = new Date(Date.now() + aheadMs).toISOString();
        const { ID } = await etcd.call<{ ID: string }>('lease/grant', { TTL: 30 });
        const { replaces: _, ...asked } = request;
        const record = {
          ...asked,
          version: LEASE_VERSION,
          started: at,
          heartbeat: at,
          ttlMs: 30_000,
        };
        await put(JSON.stringify(record), ID);
      },
      close: () => {
        probe.close();
        etcd.close();
        return Promise.resolve();
      },
    };
  };
}
