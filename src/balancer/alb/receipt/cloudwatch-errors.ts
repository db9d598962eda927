import { awsAccessError, awsMessage } from '../../../aws/errors.js';
import { OperationError, type HandoffError } from '../../../errors.js';

/**
 * One line for each way GetMetricData fails. A permission failure names the
 * IAM action to grant; throttling is an OperationError, which a bake retries.
 */
export function cloudWatchError(error: unknown, region: string | undefined): HandoffError {
  const where = 'CloudWatch GetMetricData';
  const access = awsAccessError(error, {
    where,
    permission: 'cloudwatch:GetMetricData',
    service: 'CloudWatch',
    region,
    networkHint: 'check the network',
  });
  if (access) return access;
  const body = unreadBody(error);
  if (body !== undefined)
    return new OperationError(
      `${where}: the endpoint answered with a body that is not CloudWatch's (${body}): a proxy or another service answered in its place; check AWS_ENDPOINT_URL_CLOUDWATCH, AWS_ENDPOINT_URL and any proxy`,
    );
  const name = error instanceof Error ? error.name : '';
  switch (name) {
    case 'Throttling':
    case 'ThrottlingException':
    case 'LimitExceededException':
      return new OperationError(`${where}: throttled by AWS (${name}): retried within the bake`);
  }
  return new OperationError(`${where}: ${name || 'error'}: ${awsMessage(error)}`);
}

/**
 * The SDK's parse failure of an answer in another format (a proxy's HTML, an
 * emulator's XML where CloudWatch speaks JSON): it carries the body as
 * `$responseBodyText`; its own message ("Unexpected token '<'") says nothing
 * a user can act on. The body's start, on one line, says who answered.
 */
function unreadBody(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'SyntaxError') return undefined;
  const text = (error as { $responseBodyText?: unknown }).$responseBodyText;
  if (typeof text !== 'string') return 'unreadable';
  const start = text.replace(/\s+/g, ' ').trim().slice(0, 60);
  return start === '' ? 'empty' : `it begins ${JSON.stringify(start)}`;
}
