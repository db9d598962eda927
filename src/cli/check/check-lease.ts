import type { Config } from '../../config/types.js';
import { ENDPOINTS_ENV, etcdOptions, etcdStore } from '../../rollout/lease/stores.js';
import { renderLease, summarizeLease } from '../lease-report.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface LeaseCheck {
  readonly lines: readonly string[];
  readonly json: Record<string, unknown>;
}

/**
 * `deploy check`'s word on the `lease:` block: which store, and for etcd
 * where (endpoints, the TLS files read, the password present: exit 2 when
 * not); with --live, etcd reached and its holder named (exit 3 when no
 * endpoint answers). The hosts store is reached by every command anyway.
 */
export async function checkLease(config: Config, live: boolean, env: Env): Promise<LeaseCheck> {
  if (config.lease.store === 'hosts')
    return {
      lines: ['fleet lease: on the hosts (a piece on every host of deploy.yml)'],
      json: { store: 'hosts' },
    };
  const options = await etcdOptions(config, env);
  const from = config.lease.endpoints.length > 0 ? 'deploy.yml' : ENDPOINTS_ENV;
  const store = await etcdStore(options);
  const lines = [
    `fleet lease: etcd key ${store.key} at ${options.endpoints.join(', ')} (from ${from})`,
  ];
  const json = { store: 'etcd', key: store.key, endpoints: options.endpoints };
  if (!live) return { lines, json };
  try {
    await store.connect();
    const summary = summarizeLease(await store.read());
    return { lines: [...lines, ...renderLease(summary)], json: { ...json, held: summary.held } };
  } finally {
    store.close();
  }
}
