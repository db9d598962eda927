import { describe, expect, it } from 'vitest';
import { albError } from '../../../src/balancer/alb/errors.js';
import { awsAccessError, awsMessage } from '../../../src/aws/errors.js';
import type { AlbBalancerConfig } from '../../../src/balancer/alb/config/entry.js';
import { BlockedError, OperationError } from '../../../src/errors.js';
import { cloudWatchError } from '../../../src/balancer/alb/receipt/cloudwatch-errors.js';

function named(name: string, message = 'the SDK says so'): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

const call = {
  where: 'ALB reading target health',
  permission: 'elasticloadbalancing:DescribeTargetHealth',
  service: 'AWS',
  region: 'eu-west-1',
  networkHint: 'check the network and balancer.region',
};

const alb = {
  region: 'eu-west-1',
  targetGroupArn: 'arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/api/1',
} as AlbBalancerConfig;

describe('the failures every AWS client shares', () => {
  it.each(['ExpiredToken', 'InvalidClientTokenId', 'SignatureDoesNotMatch'])(
    'blocks on rejected credentials (%s), saying to refresh them',
    (name) => {
      const error = awsAccessError(named(name), call);
      expect(error).toBeInstanceOf(BlockedError);
      expect(error?.message).toBe(
        `ALB reading target health: AWS rejected the credentials (${name}): refresh them`,
      );
    },
  );

  it('names the unreachable endpoint, its region and what to check', () => {
    const error = awsAccessError(Object.assign(new Error('getaddrinfo'), { code: 'EAI_AGAIN' }), {
      ...call,
      region: undefined,
    });
    expect(error?.message).toBe(
      "ALB reading target health: cannot reach AWS in the SDK's default region (EAI_AGAIN): check the network and balancer.region",
    );
  });

  it("says an SDK timeout (AWS_HTTP_TIMEOUTS: a dropped endpoint) is the network's", () => {
    const error = awsAccessError(named('TimeoutError'), call);
    expect(error).toBeInstanceOf(BlockedError);
    expect(error?.message).toBe(
      'ALB reading target health: cannot reach AWS in eu-west-1 (no answer in time): check the network and balancer.region',
    );
  });

  it("leaves a service's own failures to the service", () => {
    expect(awsAccessError(named('TargetGroupNotFoundException'), call)).toBeUndefined();
    expect(awsAccessError(Object.assign(new Error('x'), { code: 'EPIPE' }), call)).toBeUndefined();
  });

  it('says the same of the same credentials for the ALB and CloudWatch', () => {
    const expired = named('UnrecognizedClientException');
    expect(albError(expired, 'reading target health', alb, 'DescribeTargetHealth').message).toBe(
      'ALB reading target health: AWS rejected the credentials (UnrecognizedClientException): refresh them',
    );
    expect(cloudWatchError(expired, 'eu-west-1').message).toBe(
      'CloudWatch GetMetricData: AWS rejected the credentials (UnrecognizedClientException): refresh them',
    );
    const missing = named('CredentialsProviderError');
    expect(cloudWatchError(missing, undefined)).toBeInstanceOf(BlockedError);
    expect(albError(missing, 'reading target health', alb, 'DescribeTargetHealth')).toBeInstanceOf(
      BlockedError,
    );
  });

  it('keeps what is not about access an operation failure, with a short message', () => {
    const error = cloudWatchError(
      named('InternalFailure', `${'x'.repeat(200)}\nstack`),
      'eu-west-1',
    );
    expect(error).toBeInstanceOf(OperationError);
    expect(error.message).toBe(`CloudWatch GetMetricData: InternalFailure: ${'x'.repeat(160)}…`);
    expect(awsMessage('plain')).toBe('plain');
  });
});
