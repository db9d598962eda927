import type { AlbBalancerConfig } from './config/entry.js';
import { BlockedError, ConfigError, OperationError, type HandoffError } from '../../errors.js';
import { awsAccessError, awsMessage } from '../../aws/errors.js';
import { iamPermission, type AlbAction } from './permissions.js';
import { RetriesExhausted } from './retry.js';

/**
 * One clear line for each way an AWS call fails: what was being done, what
 * AWS said, and what to check. The SDK's own messages are kept short: they
 * can be long and name internals.
 */
export function albError(
  error: unknown,
  doing: string,
  config: AlbBalancerConfig,
  action: AlbAction,
): HandoffError {
  const where = `ALB ${doing}`;
  if (error instanceof RetriesExhausted) {
    const { cause, elapsed, attempts } = error.episode;
    const what = cause === 'throttled' ? 'throttled' : 'failed (5xx) on';
    return new BlockedError(
      `${where}: AWS ${what} ${action} for ${(elapsed / 1000).toFixed(1)} s (${attempts} attempts, with backoff): retry when the account's API is less busy`,
    );
  }
  const access = awsAccessError(error, {
    where,
    permission: iamPermission(action),
    service: 'AWS',
    region: config.region,
    networkHint: 'check the network and balancer.region',
  });
  if (access) return access;
  const region = config.region ?? "the SDK's default region";
  const name = error instanceof Error ? error.name : '';
  const message = awsMessage(error);
  switch (name) {
    case 'TargetGroupNotFoundException':
      return new ConfigError([
        {
          path: 'balancer.target_group_arn',
          message: `no such target group in ${region} (${config.targetGroupArn}): check the ARN and balancer.region`,
        },
      ]);
    case 'LoadBalancerNotFoundException':
      return new OperationError(`${where}: the target group's load balancer no longer exists`);
    case 'InvalidTargetException':
      return new OperationError(
        `${where}: AWS refuses the target (${message}): check hosts[].target (an instance id or an IP in the VPC)`,
      );
    case 'ValidationError':
      return new OperationError(`${where}: AWS refused the request: ${message}`);
  }
  if (/^Region is missing/.test(message))
    return new ConfigError([
      {
        path: 'balancer.region',
        message: 'no AWS region: set balancer.region, AWS_REGION, or a region in the AWS profile',
      },
    ]);
  return new OperationError(`${where}: ${name || 'error'}: ${message}`);
}
