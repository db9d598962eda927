import { awsAccessError, awsMessage } from './aws-errors.js';
import { OperationError, type HandoffError } from '../../errors.js';

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
  const name = error instanceof Error ? error.name : '';
  switch (name) {
    case 'Throttling':
    case 'ThrottlingException':
    case 'LimitExceededException':
      return new OperationError(`${where}: throttled by AWS (${name}): retried within the bake`);
  }
  return new OperationError(`${where}: ${name || 'error'}: ${awsMessage(error)}`);
}
