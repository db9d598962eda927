import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { HostAgent } from '../../agent-client/host-agent.js';
import type { Config, HostConfig, LeaseConfig } from '../../config/types.js';
import { ETCD_ENDPOINT } from '../../config/kit/names.js';
import { UsageError, messageOf } from '../../errors.js';
import type { EtcdLeaseStore, EtcdStoreOptions } from './etcd/etcd-store.js';
import { HostLeaseStore } from './host-store.js';
import type { LeaseStore } from './store.js';

type Env = Readonly<Record<string, string | undefined>>;

/** where the etcd endpoints come from when deploy.yml names none */
export const ENDPOINTS_ENV = 'HANDOFF_ETCD_ENDPOINTS';

/**
 * The one place that names the stores: deploy.yml's `lease.store` picks
 * one. Built from plain values (the config, the environment, a way to reach
 * a host's agent), so a bench or a test builds one the same way.
 */
export async function leaseStoreOf(
  config: Pick<Config, 'hosts' | 'service' | 'lease'>,
  deps: {
    readonly agentOf: (host: HostConfig) => Promise<HostAgent>;
    readonly env: Env;
    /** the hosts store leaves a host the network does not reach out of the lease */
    readonly skipUnreachable?: boolean;
  },
): Promise<LeaseStore> {
  if (config.lease.store === 'hosts')
    return new HostLeaseStore(config.hosts, deps.agentOf, {
      skipUnreachable: deps.skipUnreachable ?? false,
    });
  return etcdStore(await etcdOptions(config, deps.env));
}

/** The etcd store, its client loaded only now: the agent bundle leaves it out (scripts/build.ts), as it does ssh2. */
export async function etcdStore(options: EtcdStoreOptions): Promise<EtcdLeaseStore> {
  const { EtcdLeaseStore } = await import('./etcd/etcd-store.js');
  return new EtcdLeaseStore(options);
}

/** deploy.yml's etcd settings, made concrete: endpoints, the PEM files read, the password. */
export async function etcdOptions(
  config: Pick<Config, 'service' | 'lease'>,
  env: Env,
): Promise<EtcdStoreOptions> {
  const lease = config.lease;
  const endpoints = etcdEndpoints(lease, env);
  const pem = async (file: string | undefined, what: string) => {
    if (file === undefined) return {};
    try {
      return { [what]: await readFile(file, 'utf8') };
    } catch (error) {
      throw new UsageError(`lease.tls.${what}: cannot read ${file}: ${messageOf(error)}`);
    }
  };
  const password = lease.username === undefined ? undefined : env[lease.passwordEnv];
  if (lease.username !== undefined && !password)
    throw new UsageError(
      `lease.username ${lease.username}: set the password in ${lease.passwordEnv} (it is never read from deploy.yml)`,
    );
  const tls = {
    ...(await pem(lease.tls?.ca, 'ca')),
    ...(await pem(lease.tls?.cert, 'cert')),
    ...(await pem(lease.tls?.key, 'key')),
  };
  try {
    // not PEM, or a key that is not the certificate's: said now, before etcd is asked
    createSecureContext(tls);
  } catch (error) {
    throw new UsageError(
      `lease.tls: ${messageOf(error).replace(/^error:[0-9A-F]+:[^:]*::/, '')} (${Object.values(lease.tls ?? {}).join(', ')})`,
    );
  }
  return {
    endpoints,
    prefix: lease.prefix,
    service: config.service,
    ...tls,
    ...(lease.username !== undefined && { username: lease.username, password }),
  };
}

/** deploy.yml's endpoints, else the environment's; none at all is bad usage. */
export function etcdEndpoints(lease: LeaseConfig, env: Env): readonly string[] {
  if (lease.endpoints.length > 0) return lease.endpoints;
  const given = (env[ENDPOINTS_ENV] ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const bad = given.find((e) => !ETCD_ENDPOINT.test(e));
  if (bad !== undefined)
    throw new UsageError(
      `${ENDPOINTS_ENV}: ${JSON.stringify(bad)} is not an etcd client URL; write them like https://etcd-1:2379,https://etcd-2:2379`,
    );
  if (given.length === 0)
    throw new UsageError(
      `lease.store etcd: no endpoints; list them in lease.endpoints or in ${ENDPOINTS_ENV}`,
    );
  return given;
}
