import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcd, type EtcdCluster } from '../../scripts/lab/etcd.js';
import { makeEtcdCerts, type EtcdCerts } from '../../scripts/lab/etcd-tls.js';
import { checkLease } from '../../src/cli/check/check-lease.js';
import type { LeaseConfig } from '../../src/config/types.js';
import { EtcdGateway, b64 } from '../../src/rollout/lease/etcd/gateway.js';
import { testConfig } from '../support/config.js';
import { etcdLeaseLab } from '../support/etcd-lease-lab.js';
import { leaseConformance } from '../support/lease-conformance.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';

/**
 * The etcd store over TLS with client certificates, on a real etcd
 * (`--client-cert-auth --trusted-ca-file`) and a throwaway CA made here:
 * 127.0.190.1 with etcd auth off (the certificate alone admits), 127.0.190.2
 * with etcd auth on (a user and password, and a certificate without a CN:
 * etcd refuses a CN on its JSON gateway then). A 3-host fleet on 127.0.191
 * deploys with its lease there. Subnets 127.0.190 and 127.0.191 only.
 */

const CERT_ONLY = '127.0.190.1';
const WITH_AUTH = '127.0.190.2';
const PASSWORD = 'lease-pw-7f3a9c';
const TTL_MS = 2_000;
let certs: EtcdCerts;
let certOnly: EtcdCluster;
let withAuth: EtcdCluster;
let fleet: Fleet;

beforeAll(async () => {
  certs = await makeEtcdCerts('/tmp/handoff-e2e-190-certs', [CERT_ONLY, WITH_AUTH], {
    cn: '/CN=deployer',
    plain: '/O=handoff-deployers',
  });
  const tls = { ca: certs.ca, ...certs.server };
  [certOnly, withAuth, fleet] = await Promise.all([
    startEtcd({ addresses: [CERT_ONLY], workDir: '/tmp/handoff-e2e-190-a', tls }),
    startEtcd({ addresses: [WITH_AUTH], workDir: '/tmp/handoff-e2e-190-b', tls }),
    startFleet({ hosts: 3, subnet: '127.0.191', workDir: '/tmp/handoff-e2e-191' }),
  ]);
  await enableAuth(withAuth.endpoints);
  await fleet.stageEverywhere('r2');
}, 240_000);
afterAll(async () => {
  await Promise.all([certOnly?.stop(), withAuth?.stop(), fleet?.stop()]);
});

/** PEM text of a client's certificate and key, and the CA */
async function pems(client: 'cn' | 'plain', ca = certs.ca) {
  const { cert, key } = certs.clients[client] ?? { cert: '', key: '' };
  const [caPem, certPem, keyPem] = await Promise.all(
    [ca, cert, key].map((f) => readFile(f, 'utf8')),
  );
  return { ca: caPem, cert: certPem, key: keyPem };
}

/**
 * etcd's auth switched on through its gateway: root (needed to enable it)
 * and `deployer`, whose role reads and writes every key under `/`.
 */
async function enableAuth(endpoints: readonly string[]): Promise<void> {
  const admin = new EtcdGateway({ endpoints, ...(await pems('plain')) });
  for (const [call, body] of [
    ['auth/user/add', { name: 'root', password: 'root-pw' }],
    ['auth/role/add', { name: 'root' }],
    ['auth/user/grant', { user: 'root', role: 'root' }],
    ['auth/user/add', { name: 'deployer', password: PASSWORD }],
    ['auth/role/add', { name: 'lease' }],
    [
      'auth/role/grant',
      { name: 'lease', perm: { permType: 'READWRITE', key: b64('/'), range_end: b64('0') } },
    ],
    ['auth/user/grant', { user: 'deployer', role: 'lease' }],
    ['auth/enable', {}],
  ] as const)
    await admin.call(call, body);
  admin.close();
}

leaseConformance(
  'etcd over TLS, admitted by its client certificate (a CN, etcd auth off)',
  etcdLeaseLab(async () => ({ endpoints: certOnly.endpoints, ...(await pems('cn')) }), TTL_MS),
);
leaseConformance(
  'etcd over TLS with etcd auth on (user and password, a certificate without a CN)',
  etcdLeaseLab(
    async () => ({
      endpoints: withAuth.endpoints,
      ...(await pems('plain')),
      username: 'deployer',
      password: PASSWORD,
    }),
    TTL_MS,
  ),
);

/** deploy.yml's lease: block, as the config loader makes it */
function leaseOf(endpoint: string, tls: LeaseConfig['tls'], username?: string): LeaseConfig {
  return {
    store: 'etcd',
    endpoints: [endpoint],
    prefix: '/checked',
    passwordEnv: 'HANDOFF_ETCD_PASSWORD',
    ...(tls && { tls }),
    ...(username !== undefined && { username }),
  };
}

describe('deploy check --live against a TLS etcd', () => {
  const env = { HANDOFF_ETCD_PASSWORD: PASSWORD };
  const plain = () => certs.clients.plain ?? { cert: '', key: '' };
  const cn = () => certs.clients.cn ?? { cert: '', key: '' };

  it('reaches it with the CA, a client certificate and the password, and says it is free', async () => {
    const lease = leaseOf(withAuth.endpoints[0] ?? '', { ca: certs.ca, ...plain() }, 'deployer');
    const checked = await checkLease(testConfig({ lease }), true, env);
    expect(checked.json).toMatchObject({ store: 'etcd', held: false });
  });

  it.each([
    [
      'a CA that did not sign etcd',
      () => leaseOf(certOnly.endpoints[0] ?? '', { ca: certs.otherCa, ...cn() }),
      /^etcd: https:\/\/127\.0\.190\.1:2379: etcd's certificate is not signed by the CA in lease\.tls\.ca \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/,
    ],
    [
      'no client certificate',
      () => leaseOf(certOnly.endpoints[0] ?? '', { ca: certs.ca }),
      /^etcd: https:\/\/127\.0\.190\.1:2379: etcd asks for a client certificate \(--client-cert-auth\): set lease\.tls\.cert and lease\.tls\.key$/,
    ],
    [
      'a client certificate etcd’s CA did not sign',
      () =>
        leaseOf(certOnly.endpoints[0] ?? '', {
          ca: certs.ca,
          cert: certs.otherCa,
          key: certs.otherCa.replace(/pem$/, 'key'),
        }),
      /^etcd: https:\/\/127\.0\.190\.1:2379: etcd refused the client certificate in lease\.tls\.cert: not signed by a CA in etcd's --trusted-ca-file$/,
    ],
    [
      'a certificate with a CN while etcd auth is on (etcd refuses it on its JSON gateway)',
      () => leaseOf(withAuth.endpoints[0] ?? '', { ca: certs.ca, ...cn() }, 'deployer'),
      /^etcd: https:\/\/127\.0\.190\.2:2379: etcd refuses a client certificate with a CommonName on its JSON gateway while etcd auth is on: use a certificate whose subject has no CN, and lease\.username$/,
    ],
    [
      'an http:// endpoint at this etcd, which serves TLS',
      () => leaseOf((certOnly.endpoints[0] ?? '').replace('https:', 'http:'), undefined),
      /^etcd: http:\/\/127\.0\.190\.1:2379: closed the connection on a plain http:\/\/ request without answering, as an etcd serving TLS does: write https:\/\/ in lease\.endpoints$/,
    ],
  ])('%s: one line, exit 2', async (_, lease, said) => {
    const checking = checkLease(testConfig({ lease: lease() }), true, env);
    await expect(checking).rejects.toMatchObject({ exitCode: 2 });
    await expect(checking).rejects.toThrow(said);
  });

  it('a wrong password: etcd’s word, one line, exit 2, the password not in it', async () => {
    const lease = leaseOf(withAuth.endpoints[0] ?? '', { ca: certs.ca, ...plain() }, 'deployer');
    const checking = checkLease(testConfig({ lease }), true, {
      HANDOFF_ETCD_PASSWORD: 'not-it-4b1d',
    });
    await expect(checking).rejects.toMatchObject({ exitCode: 2 });
    await expect(checking).rejects.toThrow(
      /^etcd: etcdserver: authentication failed, invalid user ID or password: etcd auth is on; check lease\.username and the password in its variable \(lease\.password_env\)$/,
    );
  });
});

describe('a rollout with the fleet lease on a TLS etcd with auth', () => {
  it('deploy check --live and the rollout reach it; a wrong CA is one line, exit 2, no secret in it', async () => {
    const { cert, key } = certs.clients.plain ?? { cert: '', key: '' };
    const write = async (ca: string) => {
      const lease = [
        'lease:',
        '  store: etcd',
        `  endpoints: [${withAuth.endpoints[0]}]`,
        `  tls: { ca: ${ca}, cert: ${cert}, key: ${key} }`,
        '  username: deployer',
      ];
      await writeFile(fleet.configPath, `${fleet.lab.config().trimEnd()}\n${lease.join('\n')}\n`);
    };
    // the harness's deploy runs with this process's environment
    process.env.HANDOFF_ETCD_PASSWORD = PASSWORD;
    try {
      await write(certs.ca);
      const setup = await fleet.deploy(['setup']);
      expect(setup.code, setup.stderr).toBe(0);
      const check = await fleet.deploy(['check', '--live']);
      expect(check.code, check.stderr).toBe(0);
      expect(check.stdout).toMatch(
        /fleet lease: etcd key \/handoff\/lab\/lease at https:\/\/127\.0\.190\.2:2379/,
      );
      const rollout = await fleet.deploy(['rollout', '--release', 'r2']);
      expect(rollout.code, rollout.stderr).toBe(0);
      expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r2', 'r2', 'r2']);

      await write(certs.otherCa);
      const wrong = await fleet.deploy(['check', '--live']);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/etcd's certificate is not signed by the CA in lease\.tls\.ca/),
      ]);
      const keyPem = await readFile(key, 'utf8');
      for (const out of [check, rollout, wrong])
        for (const secret of [PASSWORD, keyPem.split('\n')[1] ?? keyPem])
          expect(out.stdout + out.stderr).not.toContain(secret);
    } finally {
      delete process.env.HANDOFF_ETCD_PASSWORD;
    }
  }, 180_000);
});
