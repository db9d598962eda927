import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { isAlive, killGroup, until } from './procs.js';

/**
 * Debian's etcd-server on loopback addresses: one member, or a cluster of
 * several (one address each, client port 2379, peer port 2380), for the
 * fleet lease's etcd store. Plain HTTP by default; with `tls`, the client
 * port is HTTPS and asks every client for a certificate the CA signed
 * (`--client-cert-auth`), as a production etcd does (scripts/lab/etcd-tls.ts
 * makes the files).
 */
export interface EtcdCluster {
  /** the client URLs, one per member */
  readonly endpoints: readonly string[];
  readonly members: readonly EtcdMember[];
  /** SIGKILL one member (a member lost); the cluster keeps quorum with the others */
  kill(name: string): Promise<void>;
  stop(): Promise<void>;
}

export interface EtcdMember {
  readonly name: string;
  readonly address: string;
  readonly pid: number;
}

export async function startEtcd(options: {
  /** one loopback address per member, e.g. ['127.0.131.1', '127.0.131.2', '127.0.131.3'] */
  readonly addresses: readonly string[];
  readonly workDir: string;
  /** fsync every write as a production etcd does (a benchmark); default off: a lab answers at once */
  readonly fsync?: boolean;
  /** PEM files: the CA clients are checked against, the server's certificate and key */
  readonly tls?: { readonly ca: string; readonly cert: string; readonly key: string };
}): Promise<EtcdCluster> {
  const { tls } = options;
  const scheme = tls ? 'https' : 'http';
  await rm(options.workDir, { recursive: true, force: true });
  await mkdir(options.workDir, { recursive: true });
  const named = options.addresses.map((address, i) => ({ name: `etcd-${i + 1}`, address }));
  const cluster = named.map((m) => `${m.name}=http://${m.address}:2380`).join(',');
  const members: EtcdMember[] = named.map((m) => {
    const log = openSync(path.join(options.workDir, `${m.name}.log`), 'a');
    const child = spawn(
      'etcd',
      [
        `--name=${m.name}`,
        `--data-dir=${path.join(options.workDir, m.name)}`,
        `--listen-client-urls=${scheme}://${m.address}:2379`,
        `--advertise-client-urls=${scheme}://${m.address}:2379`,
        `--listen-peer-urls=http://${m.address}:2380`,
        `--initial-advertise-peer-urls=http://${m.address}:2380`,
        `--initial-cluster=${cluster}`,
        `--initial-cluster-token=${path.basename(options.workDir)}`,
        '--initial-cluster-state=new',
        // a lab member answers at once: fsync is the disk's business, not the lease's
        ...(options.fsync ? [] : ['--unsafe-no-fsync']),
        ...(tls
          ? [
              `--cert-file=${tls.cert}`,
              `--key-file=${tls.key}`,
              `--trusted-ca-file=${tls.ca}`,
              '--client-cert-auth',
            ]
          : []),
      ],
      { detached: true, stdio: ['ignore', log, log] },
    );
    closeSync(log);
    child.unref();
    return { ...m, pid: child.pid ?? 0 };
  });
  const endpoints = named.map((m) => `${scheme}://${m.address}:2379`);
  const stop = async () => {
    await Promise.all(members.filter((m) => isAlive(m.pid)).map((m) => killGroup(m.pid)));
  };
  const ready = await until(
    async () => (await Promise.all(endpoints.map((e) => healthy(e, tls)))).every(Boolean),
    30_000,
  );
  if (!ready) {
    await stop();
    throw new Error(`etcd did not become healthy within 30s (logs in ${options.workDir})`);
  }
  return {
    endpoints,
    members,
    kill: async (name) => {
      const member = members.find((m) => m.name === name);
      if (member) await killGroup(member.pid, 0);
    },
    stop,
  };
}

/**
 * etcd's own health endpoint: true once the member has a leader and answers.
 * Over TLS, asked with the server's own certificate (the CA signed it for
 * both server and client use), so the lab needs no second key.
 */
function healthy(
  endpoint: string,
  tls?: { ca: string; cert: string; key: string },
): Promise<boolean> {
  const get = tls ? https.get : http.get;
  const pem = tls && {
    ca: readFileSync(tls.ca),
    cert: readFileSync(tls.cert),
    key: readFileSync(tls.key),
  };
  return new Promise((resolve) => {
    const request = get(`${endpoint}/health`, { timeout: 1_000, ...pem }, (response) => {
      let body = '';
      response.on('data', (c: Buffer) => (body += c.toString()));
      response.on('end', () => resolve(/"health":\s*"true"/.test(body)));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}
