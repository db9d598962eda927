import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';

/**
 * A throwaway CA and the certificates a TLS etcd needs, made with the
 * openssl CLI into `dir` (nothing committed, nothing reused): the server's
 * (an IP subjectAltName for each address, for server and client use) and one
 * client certificate per subject asked for, e.g. `{ cn: '/CN=deployer',
 * plain: '/O=handoff' }`. A second CA (`other-ca.pem`) signed nothing a
 * server presents: the CA a misconfigured client trusts.
 */
export interface EtcdCerts {
  readonly ca: string;
  readonly otherCa: string;
  readonly server: { readonly cert: string; readonly key: string };
  readonly clients: Readonly<Record<string, { readonly cert: string; readonly key: string }>>;
}

export async function makeEtcdCerts(
  dir: string,
  addresses: readonly string[],
  clients: Readonly<Record<string, string>>,
): Promise<EtcdCerts> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const at = (name: string) => path.join(dir, name);
  const openssl = (args: readonly string[]) => execa('openssl', args, { cwd: dir });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  for (const ca of ['ca', 'other-ca'])
    await openssl([
      'req',
      '-x509',
      ...ec,
      '-keyout',
      `${ca}.key`,
      '-out',
      `${ca}.pem`,
      '-days',
      '1',
      '-subj',
      `/CN=${ca}`,
    ]);
  const sign = async (name: string, subject: string, extensions: string) => {
    await writeFile(at(`${name}.ext`), extensions);
    await openssl([
      'req',
      ...ec,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subject,
    ]);
    await openssl([
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
    ]);
    return { cert: at(`${name}.pem`), key: at(`${name}.key`) };
  };
  const san = addresses.map((a) => `IP:${a}`).join(',');
  const server = await sign(
    'server',
    '/CN=etcd',
    `subjectAltName=${san}\nextendedKeyUsage=serverAuth,clientAuth\n`,
  );
  const signed: Record<string, { cert: string; key: string }> = {};
  for (const [name, subject] of Object.entries(clients))
    signed[name] = await sign(`client-${name}`, subject, 'extendedKeyUsage=clientAuth\n');
  return { ca: at('ca.pem'), otherCa: at('other-ca.pem'), server, clients: signed };
}
