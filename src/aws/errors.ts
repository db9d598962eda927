import { BlockedError, type HandoffError } from '../errors.js';
import { excerpt } from '../safe-text.js';

/** What one AWS call was, for the line that says why it failed. */
export interface AwsCall {
  /** the start of the line: what was being done (`ALB reading target health`) */
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
 * caller's own service must classify. One place, so the ALB and CloudWatch
 * say the same thing about the same credentials.
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

/**
 * Every AWS client's HTTP timeouts. The SDK's own are none: a call to an
 * endpoint whose packets are dropped waits as long as the kernel retries its
 * connection, minutes, while a host may be drained. Connecting takes at most
 * 5 s, an answer 20 s (the SDK only warns past its requestTimeout unless told
 * to throw); the SDK's retries (AWS_MAX_ATTEMPTS, 3 by default) still apply.
 */
export const AWS_HTTP_TIMEOUTS = {
  connectionTimeout: 5_000,
  requestTimeout: 20_000,
  throwOnRequestTimeout: true,
} as const;

/** an SDK message's first line, short: they can be long and name internals */
export function awsMessage(error: unknown): string {
  return excerpt(error instanceof Error ? error.message : String(error), 160);
}
