import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config, SecretSource } from '../../../src/config/types.js';
import { ExitCode, HandoffError } from '../../../src/errors.js';
import { secretMask } from '../../../src/safe-text.js';
import { resolveSecrets } from '../../../src/secrets/resolve.js';
import { testConfig } from '../../support/config.js';

const sm = mockClient(SecretsManagerClient);
const ssm = mockClient(SSMClient);
afterEach(() => {
  sm.reset();
  ssm.reset();
});

function withSecrets(secret: string[], sources: Record<string, SecretSource>): Config {
  const base = testConfig();
  return { ...base, env: { clear: {}, secret, sources } };
}

function awsError(name: string): Error {
  return Object.assign(new Error(`${name}: the SDK's message`), { name });
}

async function failure(promise: Promise<unknown>): Promise<HandoffError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HandoffError);
  return error as HandoffError;
}

describe('secrets fetched from where teams keep them', () => {
  it('reads a Secrets Manager secret whole, and one key of a JSON one', async () => {
    sm.on(GetSecretValueCommand, { SecretId: 'prod/token' }).resolves({ SecretString: 'tok-1a' });
    sm.on(GetSecretValueCommand, { SecretId: 'prod/db' }).resolves({
      SecretString: JSON.stringify({ url: 'postgres://db-9f', user: 'u' }),
    });
    const config = withSecrets(['PLAIN', 'TOKEN', 'DB_URL'], {
      TOKEN: { kind: 'aws_secret', secretId: 'prod/token' },
      DB_URL: { kind: 'aws_secret', secretId: 'prod/db', key: 'url', region: 'eu-west-1' },
    });
    const env = await resolveSecrets(config, { PLAIN: 'from-env' });
    expect(env).toEqual({ PLAIN: 'from-env', TOKEN: 'tok-1a', DB_URL: 'postgres://db-9f' });
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('decrypts an SSM SecureString', async () => {
    ssm
      .on(GetParameterCommand, { Name: '/prod/key', WithDecryption: true })
      .resolves({ Parameter: { Value: 'k-77' } });
    const config = withSecrets(['KEY'], { KEY: { kind: 'ssm', parameter: '/prod/key' } });
    expect(await resolveSecrets(config, {})).toEqual({ KEY: 'k-77' });
  });

  it('masks each value the moment it is read', async () => {
    sm.on(GetSecretValueCommand).resolves({ SecretString: 'masked-d41c9' });
    const config = withSecrets(['T'], { T: { kind: 'aws_secret', secretId: 'x' } });
    await resolveSecrets(config, {});
    expect(secretMask.mask('value masked-d41c9 here')).toBe('value *** here');
  });

  it('takes a command’s stdout, without its trailing newline, running no shell', async () => {
    const config = withSecrets(['A', 'B'], {
      A: { kind: 'command', argv: ['printf', 'v-$HOME;x\\n'], timeout: 5_000 },
      B: {
        kind: 'command',
        argv: [process.execPath, '-e', 'process.stdout.write("b")'],
        timeout: 5_000,
      },
    });
    expect(await resolveSecrets(config, {})).toEqual({ A: 'v-$HOME;x', B: 'b' });
  });

  it('leaves the environment as it is when no entry names a source', async () => {
    const environment = { X: '1' };
    expect(await resolveSecrets(testConfig(), environment)).toBe(environment);
  });
});

describe('a secret that cannot be fetched', () => {
  it('that does not exist is one line naming the entry, exit 2', async () => {
    sm.on(GetSecretValueCommand).rejects(awsError('ResourceNotFoundException'));
    const config = withSecrets(['API', 'DB'], { DB: { kind: 'aws_secret', secretId: 'prod/db' } });
    const error = await failure(resolveSecrets(config, {}));
    expect([error.exitCode, error.message]).toEqual([
      ExitCode.usage,
      'env.secret[1]: DB: AWS Secrets Manager prod/db does not exist (ResourceNotFoundException); check the name and the region',
    ]);
  });

  it('that is denied names the permission, exit 3', async () => {
    ssm.on(GetParameterCommand).rejects(awsError('AccessDeniedException'));
    const config = withSecrets(['KEY'], { KEY: { kind: 'ssm', parameter: '/p/k' } });
    const error = await failure(resolveSecrets(config, {}));
    expect([error.exitCode, error.message]).toEqual([
      ExitCode.blocked,
      'env.secret[0]: KEY: SSM parameter /p/k: access denied: the credentials lack the IAM permission ssm:GetParameter (docs/security.md lists all of them)',
    ]);
  });

  it('whose key is missing from the JSON never quotes the JSON', async () => {
    sm.on(GetSecretValueCommand).resolves({ SecretString: '{"user":"hush-31"}' });
    const config = withSecrets(['DB'], { DB: { kind: 'aws_secret', secretId: 'db', key: 'url' } });
    const error = await failure(resolveSecrets(config, {}));
    expect(error.message).toBe('env.secret[0]: DB: AWS Secrets Manager db has no key url');
  });

  it('without credentials, or a KMS key it may not use, is exit 3 saying what to fix', async () => {
    sm.on(GetSecretValueCommand).rejects(awsError('CredentialsProviderError'));
    ssm.on(GetParameterCommand).rejects(awsError('KMSAccessDeniedException'));
    const config = withSecrets(['A', 'B'], {
      A: { kind: 'aws_secret', secretId: 'a' },
      B: { kind: 'ssm', parameter: '/b' },
    });
    const error = await failure(resolveSecrets(config, {}));
    expect([error.exitCode, error.message.split('\n')]).toEqual([
      ExitCode.blocked,
      [
        'env.secret[0]: A: AWS Secrets Manager a: no AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or run on a role',
        'env.secret[1]: B: SSM parameter /b: cannot decrypt it (KMSAccessDeniedException): the credentials need kms:Decrypt on its key',
      ],
    ]);
  });

  it('that is binary, or whose key holds a list, is exit 2 and quotes nothing of it', async () => {
    sm.on(GetSecretValueCommand, { SecretId: 'bin' }).resolves({
      SecretBinary: new Uint8Array([1, 2]),
    });
    sm.on(GetSecretValueCommand, { SecretId: 'json' }).resolves({
      SecretString: '{"hosts":["hush-h1"]}',
    });
    const config = withSecrets(['A', 'B'], {
      A: { kind: 'aws_secret', secretId: 'bin' },
      B: { kind: 'aws_secret', secretId: 'json', key: 'hosts' },
    });
    const error = await failure(resolveSecrets(config, {}));
    expect([error.exitCode, error.message.split('\n')]).toEqual([
      ExitCode.usage,
      [
        'env.secret[0]: A: AWS Secrets Manager bin holds binary data; store the value as text',
        'env.secret[1]: B: AWS Secrets Manager json: key hosts holds a list, not text',
      ],
    ]);
  });

  it('from a command that fails says its status and first stderr line, exit 3', async () => {
    const config = withSecrets(['S'], {
      S: {
        kind: 'command',
        argv: [process.execPath, '-e', 'console.error("not signed in\\nmore"); process.exit(4)'],
        timeout: 5_000,
      },
    });
    const error = await failure(resolveSecrets(config, {}));
    expect(error.exitCode).toBe(ExitCode.blocked);
    expect(error.message).toBe(
      `env.secret[0]: S: command ${process.execPath} exited 4: not signed in`,
    );
  });

  it('from a command that runs too long is killed at its timeout', async () => {
    const config = withSecrets(['S'], {
      S: { kind: 'command', argv: ['sleep', '30'], timeout: 200 },
    });
    const error = await failure(resolveSecrets(config, {}));
    expect(error.message).toBe(
      'env.secret[0]: S: command sleep did not finish within 200ms (timeout); it was killed',
    );
  });

  it('from a command that prints more than a secret can be is exit 2, its output never quoted', async () => {
    const config = withSecrets(['S'], {
      S: {
        kind: 'command',
        argv: [process.execPath, '-e', 'process.stdout.write("x".repeat(70000))'],
        timeout: 5_000,
      },
    });
    const error = await failure(resolveSecrets(config, {}));
    expect([error.exitCode, error.message]).toEqual([
      ExitCode.usage,
      `env.secret[0]: S: command ${process.execPath} printed more than 65536 bytes`,
    ]);
  });

  it('from a program that is not there, or prints nothing, is exit 2', async () => {
    const config = withSecrets(['A', 'B'], {
      A: { kind: 'command', argv: ['no-such-program-h4'], timeout: 5_000 },
      B: { kind: 'command', argv: ['true'], timeout: 5_000 },
    });
    const error = await failure(resolveSecrets(config, {}));
    expect([error.exitCode, error.message]).toEqual([
      ExitCode.usage,
      'env.secret[0]: A: command no-such-program-h4: no such program on PATH\nenv.secret[1]: B: command true printed nothing',
    ]);
  });
});
