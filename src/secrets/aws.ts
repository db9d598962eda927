import { awsClientOptions } from '../aws/client-options.js';
import { awsAccessError, awsMessage } from '../aws/errors.js';
import type { SecretSource } from '../config/types.js';
import { SecretFetchError } from './fetch-error.js';

type AwsSecret = Extract<SecretSource, { kind: 'aws_secret' }>;
type SsmParameter = Extract<SecretSource, { kind: 'ssm' }>;

const NETWORK_HINT = 'check the network and the region';
const NOT_FOUND = /^(ResourceNotFoundException|ParameterNotFound|ParameterVersionNotFound)$/;

/** AWS Secrets Manager: the secret's string, or one field of its JSON (`key`). */
export async function fetchAwsSecret(source: AwsSecret, signal: AbortSignal): Promise<string> {
  const { SecretsManagerClient, GetSecretValueCommand } =
    await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient(awsClientOptions(source.region));
  const what = `AWS Secrets Manager ${source.secretId}`;
  try {
    const answer = await client
      .send(new GetSecretValueCommand({ SecretId: source.secretId }), { abortSignal: signal })
      .catch((error: unknown) => {
        throw classify(error, what, 'secretsmanager:GetSecretValue', source.region);
      });
    if (answer.SecretString === undefined)
      throw new SecretFetchError('missing', `${what} holds binary data; store the value as text`);
    return source.key === undefined
      ? answer.SecretString
      : field(answer.SecretString, source.key, what);
  } finally {
    client.destroy();
  }
}

/** SSM Parameter Store: the parameter's value, a SecureString decrypted. */
export async function fetchSsmParameter(
  source: SsmParameter,
  signal: AbortSignal,
): Promise<string> {
  const { SSMClient, GetParameterCommand } = await import('@aws-sdk/client-ssm');
  const client = new SSMClient(awsClientOptions(source.region));
  const what = `SSM parameter ${source.parameter}`;
  try {
    const answer = await client
      .send(new GetParameterCommand({ Name: source.parameter, WithDecryption: true }), {
        abortSignal: signal,
      })
      .catch((error: unknown) => {
        throw classify(error, what, 'ssm:GetParameter', source.region);
      });
    const value = answer.Parameter?.Value;
    if (value === undefined) throw new SecretFetchError('missing', `${what} has no value`);
    return value;
  } finally {
    client.destroy();
  }
}

/** One field of a JSON secret; its text is never quoted, it is the secret. */
function field(text: string, key: string, what: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SecretFetchError(
      'missing',
      `${what} is not JSON, so it has no key ${key}; drop key:`,
    );
  }
  const value =
    typeof parsed === 'object' && parsed !== null
      ? (parsed as Record<string, unknown>)[key]
      : undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new SecretFetchError(
    'missing',
    value === undefined
      ? `${what} has no key ${key}`
      : `${what}: key ${key} holds a ${Array.isArray(value) ? 'list' : typeof value}, not text`,
  );
}

function classify(
  error: unknown,
  what: string,
  permission: string,
  region: string | undefined,
): SecretFetchError {
  const name = error instanceof Error ? error.name : '';
  if (NOT_FOUND.test(name))
    return new SecretFetchError(
      'missing',
      `${what} does not exist (${name}); check the name and the region`,
    );
  const access = awsAccessError(error, {
    where: what,
    permission,
    service: 'AWS',
    region,
    networkHint: NETWORK_HINT,
    docs: 'docs/security.md',
  });
  if (access) return new SecretFetchError('blocked', access.message);
  if (name === 'DecryptionFailure' || name === 'KMSAccessDeniedException')
    return new SecretFetchError(
      'blocked',
      `${what}: cannot decrypt it (${name}): the credentials need kms:Decrypt on its key`,
    );
  return new SecretFetchError('blocked', `${what}: ${name || 'error'}: ${awsMessage(error)}`);
}
