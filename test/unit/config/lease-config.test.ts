import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { toDocument } from '../../../src/config/serialize.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

describe('the lease: block', () => {
  it('defaults to the hosts store, which needs nothing', async () => {
    const config = await loadConfig(await writeConfig(minimal), { env: {} });
    expect(config.lease).toEqual({
      store: 'hosts',
      endpoints: [],
      prefix: '/handoff',
      passwordEnv: 'HANDOFF_ETCD_PASSWORD',
    });
  });

  it('etcd: endpoints, prefix, TLS files resolved beside deploy.yml, the password by name', async () => {
    const file = await writeConfig(
      `${minimal}lease:\n  store: etcd\n  endpoints: [https://etcd-1:2379, https://etcd-2:2379]\n  prefix: /teams/web\n  tls: { ca: certs/ca.pem, cert: certs/me.pem, key: certs/me.key }\n  username: deployer\n  password_env: ETCD_PW\n`,
    );
    const config = await loadConfig(file, { env: {} });
    const dir = path.dirname(file);
    expect(config.lease).toEqual({
      store: 'etcd',
      endpoints: ['https://etcd-1:2379', 'https://etcd-2:2379'],
      prefix: '/teams/web',
      tls: {
        ca: path.join(dir, 'certs/ca.pem'),
        cert: path.join(dir, 'certs/me.pem'),
        key: path.join(dir, 'certs/me.key'),
      },
      username: 'deployer',
      passwordEnv: 'ETCD_PW',
    });
    // the host config carries the block as it is: a name, never a password
    expect(toDocument(config).lease).toMatchObject({ store: 'etcd', password_env: 'ETCD_PW' });
  });

  it('refuses a bad endpoint, a prefix without its slash, a cert without its key, etcd keys on the hosts store', async () => {
    const lines = await problemsOf(
      `${minimal}lease:\n  store: hosts\n  endpoints: [etcd-1:2379]\n  prefix: handoff/\n  tls: { cert: me.pem }\n`,
    );
    expect(lines.join('\n')).toMatch(/lease\.endpoints\[0\]: must be an etcd client URL/);
    expect(lines.join('\n')).toMatch(/lease\.prefix: must be an etcd key prefix/);
    expect(lines.join('\n')).toMatch(/lease\.tls\.key: cert and key go together/);
    expect(lines.join('\n')).toMatch(/lease\.endpoints: only with store: etcd/);
  });

  it('refuses an unknown store, naming the two', async () => {
    const lines = await problemsOf(`${minimal}lease:\n  store: consul\n`);
    expect(lines.join('\n')).toMatch(/lease\.store: must be one of hosts, etcd/);
  });
});
