import { BlockedError, type HandoffError } from '../errors.js';
import { excerpt } from '../safe-text.js';

/** What one AWS call was, for the line that says why it failed. */
export interface AwsCall {
  /** the start of the line: what was being done (`reading target health`) */
  readonly where: string;
  /** the IAM action the call needs (`cloudwatch:GetMetricData`) */
  readonly permission: string;
  /** who could not be reached (`AWS`, `CloudWatch`) */
  readonly service: string;
  readonly region: string | undefined;
  /** what to check when the endpoint cannot be reached */
  readonly networkHint: string;
  /** the page listing the permissions; default docs/balancers.md */
  readonly docs?: string;
}

const NETWORK_CODES = /^(ENOTFOUND|ECONNREFUSED|ETIMEDOUT|ECONNRESET|EAI_AGAIN)$/;

/**
 * The failures every AWS client shares — credentials, permissions, the
 * network — as one line saying what to fix; undefined for anything the
 * caller's own service must classify. One place, so every AWS client
 * says the same thing about the same credentials.
 */
export function awsAccessError(error: unknown, call: AwsCall): HandoffError | undefined {
  const name = error instanceof Error ? error.name : '';
  switch (name) {
    case 'CredentialsProviderError':
      return new BlockedError(
        `${call.where}: no AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or run on a role`,
      );
    case 'AccessDenied':
    case 'AccessDeniedException':
    case 'UnauthorizedOperation':
      return new BlockedError(
        `${call.where}: access denied: the credentials lack the IAM permission ${call.permission} (${call.docs ?? 'docs/balancers.md'} lists all of them)`,
      );
    case 'ExpiredToken':
    case 'ExpiredTokenException':
    case 'InvalidClientTokenId':
    case 'UnrecognizedClientException':
    case 'SignatureDoesNotMatch':
      return new BlockedError(
        `${call.where}: AWS rejected the credentials (${name}): refresh them`,
      );
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  // the SDK's own timeouts (AWS_HTTP_TIMEOUTS) throw a TimeoutError without a code
  const network = name === 'TimeoutError' ? 'no answer in time' : code;
  if (
    typeof network === 'string' &&
    (network === 'no answer in time' || NETWORK_CODES.test(network))
  )
    return new BlockedError(
      `${call.where}: cannot reach ${call.service} in ${call.region ?? "the SDK's default region"} (${network}): ${call.networkHint}`,
    );
  return undefined;
}

/** an SDK message's first line, short: they can be long and name internals */
export function awsMessage(error: unknown): string {
  return excerpt(error instanceof Error ? error.message : String(error), 160);
}
