import { BlockedError, OperationError, type HandoffError } from '../errors.js';

/**
 * One line for each way GetMetricData fails. A permission failure names the
 * IAM action to grant; throttling is an OperationError, which a bake retries.
 */
export function cloudWatchError(error: unknown, region: string | undefined): HandoffError {
  const where = 'CloudWatch GetMetricData';
  const name = error instanceof Error ? error.name : '';
  const message =
    error instanceof Error ? (error.message.split('\n')[0] ?? '').slice(0, 160) : String(error);
  switch (name) {
    case 'AccessDenied':
    case 'AccessDeniedException':
      return new BlockedError(
        `${where}: access denied: the credentials lack the IAM permission cloudwatch:GetMetricData (docs/balancers.md lists all of them)`,
      );
    case 'CredentialsProviderError':
      return new BlockedError(
        `${where}: no AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or run on a role`,
      );
    case 'ExpiredToken':
    case 'ExpiredTokenException':
    case 'InvalidClientTokenId':
    case 'UnrecognizedClientException':
      return new BlockedError(`${where}: AWS rejected the credentials (${name}): refresh them`);
    case 'Throttling':
    case 'ThrottlingException':
    case 'LimitExceededException':
      return new OperationError(`${where}: throttled by AWS (${name}): retried within the bake`);
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  if (
    typeof code === 'string' &&
    /^(ENOTFOUND|ECONNREFUSED|ETIMEDOUT|ECONNRESET|EAI_AGAIN)$/.test(code)
  )
    return new BlockedError(
      `${where}: cannot reach CloudWatch in ${region ?? "the SDK's default region"} (${code}): check the network`,
    );
  return new OperationError(`${where}: ${name || 'error'}: ${message}`);
}
