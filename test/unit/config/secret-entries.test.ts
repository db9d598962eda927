import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { toHostJson } from '../../../src/config/serialize.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

const withEnv = (env: string) => `${minimal}env:\n${env}`;

describe('env.secret entries that say where a value comes from', () => {
  it('reads names, AWS Secrets Manager, SSM and command entries', async () => {
    const file = await writeConfig(
      withEnv(`  secret:
    - API_TOKEN
    - { name: DB_URL, aws_secret: prod/db, key: url, region: eu-west-1 }
    - { name: SIGNING_KEY, ssm: /prod/signing }
    - { name: OP, command: "op read op://prod/x/y" }
    - { name: VAULT, command: [vault, kv, get, -field=pw, secret/app], timeout: 5s }
`),
    );
    const config = await loadConfig(file, { env: {} });
    expect(config.env.secret).toEqual(['API_TOKEN', 'DB_URL', 'SIGNING_KEY', 'OP', 'VAULT']);
    expect(config.env.sources).toEqual({
      DB_URL: { kind: 'aws_secret', secretId: 'prod/db', key: 'url', region: 'eu-west-1' },
      SIGNING_KEY: { kind: 'ssm', parameter: '/prod/signing' },
      OP: { kind: 'command', argv: ['op', 'read', 'op://prod/x/y'], timeout: 30_000 },
      VAULT: {
        kind: 'command',
        argv: ['vault', 'kv', 'get', '-field=pw', 'secret/app'],
        timeout: 5_000,
      },
    });
  });

  it('publishes names only to the hosts, never where they come from', async () => {
    const file = await writeConfig(
      withEnv('  secret:\n    - { name: DB_URL, aws_secret: prod/db }\n'),
    );
    const json = toHostJson(await loadConfig(file, { env: {} }));
    expect((JSON.parse(json) as { env: unknown }).env).toEqual({ clear: {}, secret: ['DB_URL'] });
    expect(json).not.toContain('prod/db');
  });

  it('refuses an entry with two sources, and a key of another source, at their lines', async () => {
    expect(
      await problemsOf(
        withEnv(`  secret:
    - { name: A, aws_secret: a, ssm: /a }
    - { name: B, command: "x", key: k }
`),
      ),
    ).toEqual([
      'env.secret[0]: names aws_secret and ssm: a secret comes from one place; keep one (FILE:21:7)',
      'env.secret[1].key: goes with aws_secret, which this entry does not name (FILE:22:37)',
    ]);
  });

  it('refuses an unknown key in an entry, with the key it meant', async () => {
    const problems = await problemsOf(withEnv('  secret:\n    - { name: A, aws_secrets: a }\n'));
    expect(problems[0]).toMatch(
      /^env\.secret\[0\]\.aws_secrets: unknown key \(did you mean 'aws_secret'\?\)/,
    );
  });
});
