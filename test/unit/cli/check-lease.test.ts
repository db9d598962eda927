import { describe, expect, it } from 'vitest';
import { checkLease } from '../../../src/cli/check/check-lease.js';
import type { Config, LeaseConfig } from '../../../src/config/types.js';
import { testConfig } from '../../support/config.js';

const etcd = (lease: Partial<LeaseConfig>): Config =>
  testConfig({
    lease: {
      store: 'etcd',
      endpoints: [],
      prefix: '/handoff',
      passwordEnv: 'HANDOFF_ETCD_PASSWORD',
      ...lease,
    },
  });

describe('deploy check: the lease: block', () => {
  it('the hosts store: said, nothing to reach', async () => {
    expect(await checkLease(testConfig(), true, {})).toEqual({
      lines: ['fleet lease: on the hosts (a piece on every host of deploy.yml)'],
      json: { store: 'hosts' },
    });
  });

  it('etcd: the key and where its endpoints come from (deploy.yml, else the environment)', async () => {
    const named = await checkLease(etcd({ endpoints: ['http://etcd-1:2379'] }), false, {});
    expect(named.lines).toEqual([
      'fleet lease: etcd key /handoff/api/lease at http://etcd-1:2379 (from deploy.yml)',
    ]);
    expect(named.json).toEqual({
      store: 'etcd',
      key: '/handoff/api/lease',
      endpoints: ['http://etcd-1:2379'],
    });
    const fromEnv = await checkLease(etcd({ prefix: '/teams/web/' }), false, {
      HANDOFF_ETCD_ENDPOINTS: 'https://a:2379, https://b:2379',
    });
    expect(fromEnv.lines).toEqual([
      'fleet lease: etcd key /teams/web/api/lease at https://a:2379, https://b:2379 (from HANDOFF_ETCD_ENDPOINTS)',
    ]);
  });

  it('bad input, exit 2 before anything is reached: no endpoints, a bad one, no password, a TLS file not there', async () => {
    await expect(checkLease(etcd({}), false, {})).rejects.toMatchObject({
      exitCode: 2,
      message:
        'lease.store etcd: no endpoints; list them in lease.endpoints or in HANDOFF_ETCD_ENDPOINTS',
    });
    await expect(
      checkLease(etcd({}), false, { HANDOFF_ETCD_ENDPOINTS: 'etcd-1:2379' }),
    ).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/not an etcd client URL/) as unknown,
    });
    const auth = etcd({ endpoints: ['http://etcd-1:2379'], username: 'deployer' });
    await expect(checkLease(auth, true, {})).rejects.toMatchObject({
      exitCode: 2,
      message:
        'lease.username deployer: set the password in HANDOFF_ETCD_PASSWORD (it is never read from deploy.yml)',
    });
    const tls = etcd({ endpoints: ['https://etcd-1:2379'], tls: { ca: '/nonexistent/ca.pem' } });
    await expect(checkLease(tls, true, {})).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(
        /^lease\.tls\.ca: cannot read \/nonexistent\/ca\.pem: /,
      ) as unknown,
    });
  });

  it('--live, no endpoint answers: exit 3 naming it', async () => {
    // port 9 on loopback: nothing listens, the connection is refused at once
    const down = etcd({ endpoints: ['http://127.0.0.1:9'] });
    await expect(checkLease(down, true, {})).rejects.toMatchObject({
      exitCode: 3,
      message: expect.stringMatching(
        /^etcd: no endpoint answered \(http:\/\/127\.0\.0\.1:9: /,
      ) as unknown,
    });
  });
});
